"""Commands that compare versions: two agent runs (`compare-trials`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from ..errors import CalibrantError
from .app import (
    ApiBaseOpt,
    ConcurrencyOpt,
    JudgeOpt,
    ModelOpt,
    RubricOpt,
    app,
)

FIGURE_NAMES = {
    "success_rate": ("successes / trials", "{:.0%}"),
    "pass_all_k": ("cases passing all k trials (pass^k)", "{:.0%}"),
    "pass_first_trial": ("cases passing the first trial", "{:.0%}"),
    "violation_rate": ("trials with a safety violation", "{:.0%}"),
    "permission_violation_rate": ("trials with permission violations", "{:.0%}"),
    "duplicate_write_rate": ("trials with duplicate writes", "{:.0%}"),
    "unresolved_rate": ("trials with unresolved outcomes", "{:.0%}"),
    "latency_ms_mean": ("latency, mean ms", "{:.1f}"),
    "tool_calls_mean": ("tool calls per trial, mean", "{:.1f}"),
    "cost_usd_per_accepted_outcome": ("cost per accepted outcome, USD", "{:.4f}"),
}


def _load_run(folder: Path, option: str) -> list[Any]:
    """Every transcript of a trials --out folder, with its safety verdict, as TrialFacts."""
    from ..compare.trials import facts
    from ..files import load_transcript
    from ..harness.runfolder import MARKER
    from ..paths import expand_paths
    from ..safety import check_transcript

    if not folder.is_dir():
        raise CalibrantError(f"{option} {folder}: not a folder (give a `calibrant trials --out`)")
    if (folder / MARKER).exists():
        raise CalibrantError(
            f"{option} {folder}: this trials run did not finish ({MARKER} is there); resume it "
            "with the same `calibrant trials` command before comparing"
        )
    files = expand_paths([folder], suffixes=(".json",))
    out = []
    for f in files:
        if Path(f).name.startswith((".", "_")):
            continue  # markers and scratch, not transcripts
        t = load_transcript(f)
        out.append(facts(t, check_transcript(t, source=str(f))))
    if not out:
        raise CalibrantError(f"{option} {folder}: no transcript (*.json) in it")
    return out


def _record(
    kind: str,
    report: dict[str, Any],
    *,
    judge: Any = None,
    arguments: dict[str, Any],
    seed: int | None = None,
    samples: int | None = None,
) -> str:
    """Store a finished comparison as a run, with its report; returns the run id."""
    from ..store import make_engine
    from ..store.runs import Runs

    runs = Runs(make_engine())
    run_id = runs.start(kind, judge=judge, seed=seed, samples=samples, arguments=arguments)
    runs.finish(run_id, report)
    return run_id


def _diff_text(fig: dict[str, Any], fmt: str) -> str:
    if fig.get("difference") is None:
        return f"undefined ({fig.get('undefined_reason')})"
    pct = fmt.endswith("%}")
    unit = " pts" if pct else ""
    scale = 100.0 if pct else 1.0
    num = "{:+.0f}" if pct else "{:+" + fmt[2:]
    text = num.format(fig["difference"] * scale) + unit
    if fig["ci95"]:
        lo, hi = (num.format(x * scale) for x in fig["ci95"])
        text += f" [{lo}, {hi}]"
    else:
        text += f" (no interval: {fig['undefined_reason']})"
    return text


def render_trials_comparison(console: Console, report: dict[str, Any], a: str, b: str) -> None:
    console.print(
        f"[bold]Agent run B ({b}) against A ({a})[/bold]: {report['paired_trials']} paired "
        f"trials over {report['cases']} cases; {report['interval']}"
    )
    for side in ("a", "b"):
        if report["unpaired"][side]:
            console.print(
                f"[yellow]left out, no partner in the other run ({side.upper()}):[/yellow] "
                + ", ".join(report["unpaired"][side])
            )
    table = Table(title="Paired differences (B - A, 95% interval)", title_justify="left")
    for col in ("figure", "A", "B", "B - A", "B is"):
        table.add_column(col)
    for key, (name, fmt) in FIGURE_NAMES.items():
        fig = report["figures"][key]
        va = "—" if fig.get("a") is None else fmt.format(fig["a"])
        vb = "—" if fig.get("b") is None else fmt.format(fig["b"])
        colour = {"better": "green", "worse": "red"}.get(fig["b_is"], "default")
        table.add_row(name, va, vb, _diff_text(fig, fmt), f"[{colour}]{fig['b_is']}[/{colour}]")
    console.print(table)
    cases = Table(title="Cases (regressions first)", title_justify="left")
    for col in ("case", "A successes", "B successes", "change"):
        cases.add_column(col)
    for row in report["by_case"]:
        colour = {"regressed": "red", "improved": "green"}.get(row["change"], "default")
        cases.add_row(
            row["case"],
            f"{row['successes_a']}/{row['trials']}",
            f"{row['successes_b']}/{row['trials']}",
            f"[{colour}]{row['change']}[/{colour}]",
        )
    console.print(cases)


@app.command("compare-trials")
def compare_trials_command(
    run_a: Annotated[Path, typer.Argument(help="Folder of run A (`calibrant trials --out`).")],
    run_b: Annotated[Path, typer.Argument(help="Folder of run B, the candidate.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print stable JSON.")] = False,
    fail_on_regression: Annotated[
        bool,
        typer.Option(
            "--fail-on-regression", help="Exit 1 when any case succeeded less often in B."
        ),
    ] = False,
    seed: Annotated[int, typer.Option("--seed", help="Bootstrap seed.")] = 0,
) -> None:
    """Compare two agent runs trial by trial (same case, fault schedule and trial number):
    every figure's paired difference with a 95% interval over cases, and the cases that
    regressed."""
    from ..compare.trials import PairingError, compare_trials

    facts_a = _load_run(run_a, "RUN_A")
    facts_b = _load_run(run_b, "RUN_B")
    try:
        report = compare_trials(facts_a, facts_b, seed=seed)
    except PairingError as exc:
        raise CalibrantError(f"compare-trials {run_a} {run_b}: {exc}") from None
    report["runs"] = {"a": str(run_a), "b": str(run_b)}
    report["run_id"] = _record(
        "compare-trials", report, arguments={"a": str(run_a), "b": str(run_b)}, seed=seed
    )
    if as_json:
        typer.echo(json.dumps(report, indent=2, sort_keys=True))
    else:
        render_trials_comparison(Console(), report, str(run_a), str(run_b))
    if fail_on_regression and report["regressed_cases"]:
        raise typer.Exit(1)


def _resolve(name: str) -> tuple[Any, Any, Any, int]:
    from ..judge.config import JudgeOptions, resolve_judge

    return resolve_judge(JudgeOptions(judge=name))


def _judge_gold(name: str, resolved: tuple[Any, Any, Any, int], gold: Any, seed: int) -> Any:
    """Judge every gold item with a resolved judge (answers come from the store when this
    judge version already gave them)."""
    from ..calibration.compare_judges import judge_gold
    from ..store import Store, make_engine
    from .progress import track

    with track(f"gold items judged by '{name}'", total=len(gold.item_ids)) as progress:
        return judge_gold(
            resolved,
            gold,
            seed=seed,
            store=Store(make_engine()),
            on_done=lambda j, cached: progress.advance(cached=cached),
        )


def render_judge_comparison(console: Console, report: dict[str, Any], a: str, b: str) -> None:
    ja, jb = report["judges"]["a"], report["judges"]["b"]
    console.print(
        f"[bold]Judge B '{b}'[/bold] ({jb['model']}, {jb['hash'][:12]}) against "
        f"[bold]A '{a}'[/bold] ({ja['model']}, {ja['hash'][:12]}) on "
        f"{report['gold']['items']} gold items ({report['gold']['split']}); {report['interval']}"
    )
    table = Table(title="Per criterion (kappa against the consensus)", title_justify="left")
    for col in (
        "criterion",
        "n",
        "A",
        "B",
        "B - A [95% CI]",
        "McNemar A-only/B-only, p",
        "decision",
        "more items",
    ):
        table.add_column(col)

    def k(v: float | None) -> str:
        return "undefined" if v is None else f"{v:.2f}"

    for c in report["criteria"]:
        diff = "undefined" if c["difference"] is None else f"{c['difference']:+.2f}"
        if c["ci95"]:
            diff += f" [{c['ci95'][0]:+.2f}, {c['ci95'][1]:+.2f}]"
        m = c["mcnemar"]
        colour = {"B better": "green", "B worse": "red"}.get(c["decision"], "default")
        more = "—" if c["more_items_to_settle"] is None else str(c["more_items_to_settle"])
        table.add_row(
            c["criterion"],
            str(c["n"]),
            k(c["kappa_a"]),
            k(c["kappa_b"]),
            diff,
            f"{m['a_only_right']}/{m['b_only_right']}, p={m['p_value']:.3f}",
            f"[{colour}]{c['decision']}[/{colour}]",
            more,
        )
    console.print(table)
    for c in report["criteria"]:
        if c["reason"]:
            console.print(f"{c['criterion']}: {c['reason']}", highlight=False)
    console.print(f"[bold]Overall:[/bold] {report['overall']} ({report['decision_rule']})")
    for c in report["criteria"]:
        regress = [f for f in c["flips"] if f["direction"] == "regression"]
        if not regress:
            continue
        console.print(f"\n[red]Regressions on {c['criterion']}[/red] ({len(regress)}):")
        for f in regress[:10]:
            console.print(
                f"  {f['item']} ({f['case']}): consensus {f['consensus']}, A {f['a']} — "
                f"{f['rationale_a']}; B {f['b']} — {f['rationale_b']}",
                highlight=False,
                markup=False,
            )
        if len(regress) > 10:
            console.print(f"  … {len(regress) - 10} more in --json")


@app.command("compare")
def compare_command(
    judge_a: Annotated[str, typer.Argument(help="Saved judge A (judges/A.yaml), the baseline.")],
    judge_b: Annotated[str, typer.Argument(help="Saved judge B, the candidate.")],
    gold: Annotated[Path, typer.Option("--gold", help="Gold set folder.")] = Path("gold"),
    split: Annotated[
        str, typer.Option("--split", help="calibration, heldout or all.")
    ] = "calibration",
    seed: Annotated[int, typer.Option("--seed", help="Bootstrap seed.")] = 0,
    resamples: Annotated[
        int, typer.Option("--resamples", min=100, help="Bootstrap resamples.")
    ] = 2000,
    as_json: Annotated[bool, typer.Option("--json", help="Print stable JSON.")] = False,
    fail_if_worse: Annotated[
        bool, typer.Option("--fail-if-worse", help="Exit 1 when B is worse on any criterion.")
    ] = False,
) -> None:
    """Compare two saved judge versions on the same gold items: per criterion kappa of A and
    B, a paired interval of the difference, an exact McNemar test, the flipped items
    (regressions first) and a decision."""
    from ..calibration.compare_judges import compare_judges
    from ..calibration.criterion import Settings
    from ..gold import load_gold

    if split not in ("calibration", "heldout", "all"):
        raise CalibrantError(f"--split must be calibration, heldout or all, not '{split}'")
    gold_set = load_gold(gold, split=None if split == "all" else split)
    # every check before the first model call: both judges, one rubric, labels it can read
    resolved_a, resolved_b = _resolve(judge_a), _resolve(judge_b)
    config_a, rubric = resolved_a[0], resolved_a[1]
    config_b = resolved_b[0]
    if resolved_b[1].content_hash != rubric.content_hash:
        raise CalibrantError(
            f"judges '{judge_a}' and '{judge_b}' read different rubrics "
            f"({rubric.content_hash[:15]} vs {resolved_b[1].content_hash[:15]}): compare judge "
            "versions on the same rubric"
        )
    gold_set.validate(rubric)
    judged_a = _judge_gold(judge_a, resolved_a, gold_set, seed)
    judged_b = _judge_gold(judge_b, resolved_b, gold_set, seed)
    report = compare_judges(
        gold_set,
        rubric,
        judge_a=config_a,
        judge_b=config_b,
        judgments_a=judged_a,
        judgments_b=judged_b,
        settings=Settings(seed=seed, n_resamples=resamples),
        split=None if split == "all" else split,
    )
    report["judges"]["a"]["name"], report["judges"]["b"]["name"] = judge_a, judge_b
    report["run_id"] = _record(
        "compare",
        report,
        judge=config_b,
        arguments={
            "a": judge_a,
            "b": judge_b,
            "a_hash": config_a.hash,
            "gold": str(gold),
            "split": split,
        },
        seed=seed,
    )
    if as_json:
        typer.echo(json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False))
    else:
        render_judge_comparison(Console(), report, judge_a, judge_b)
    if fail_if_worse and report["overall"] == "B worse":
        raise typer.Exit(1)


def render_stability(console: Console, report: dict[str, Any]) -> None:
    j = report["judge"]
    console.print(
        f"[bold]Stability of {j['model']}[/bold] ({j['hash'][:19]}, temperature "
        f"{j['temperature']}): {report['samples']} samples of {report['items']} gold items; "
        f"{report['statistic']}"
    )
    for w in report["warnings"]:
        console.print(f"[yellow]warning:[/yellow] {w}", highlight=False)
    table = Table(title="Agreement of the judge with itself (95% interval)", title_justify="left")
    for col in ("criterion", "self-agreement", "items whose samples differ", "flag"):
        table.add_column(col)
    for c in report["criteria"]:
        s = c["self_agreement"]
        if s["estimate"] is None:
            value = f"undefined ({s['estimate_undefined_reason']})"
        else:
            ci = s["ci"]
            value = f"{s['estimate']:.2f}" + (
                f" [{ci[0]:.2f}, {ci[1]:.2f}]"
                if ci
                else f" (no interval: {s['ci_undefined_reason']})"
            )
            value += f" (n={s['n']})"
        d = c["items_with_differing_samples"]
        differ = "—" if d["value"] is None else f"{d['value']:.0%} (n={d['n']})"
        colour = {"UNSTABLE": "red", "stable": "green"}.get(c["flag"], "yellow")
        table.add_row(c["criterion"], value, differ, f"[{colour}]{c['flag']}[/{colour}]")
    console.print(table)
    console.print(
        f"UNSTABLE: the interval reaches below {report['min_self_agreement']}; the judge's single "
        "answers on that criterion are partly chance."
    )


@app.command("stability")
def stability_command(
    samples: Annotated[
        int, typer.Option("--samples", "-k", min=2, help="Samples per item (k >= 2).")
    ] = 5,
    temperature: Annotated[
        float | None,
        typer.Option(
            "--temperature", min=0.0, help="Sample at this temperature (default: the judge's)."
        ),
    ] = None,
    gold: Annotated[Path, typer.Option("--gold", help="Gold set folder.")] = Path("gold"),
    split: Annotated[
        str, typer.Option("--split", help="calibration, heldout or all.")
    ] = "calibration",
    model: ModelOpt = None,
    api_base: ApiBaseOpt = None,
    rubric: RubricOpt = None,
    judge_name: JudgeOpt = None,
    concurrency: ConcurrencyOpt = None,
    min_self_agreement: Annotated[
        float,
        typer.Option("--min-self-agreement", min=0.0, max=1.0, help="Flag below this lower bound."),
    ] = 0.8,
    seed: Annotated[int, typer.Option("--seed", help="Bootstrap seed.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print stable JSON.")] = False,
) -> None:
    """Judge stability: sample one judge configuration k times on the gold items and measure
    how much its samples agree with one another, per criterion, with a 95% interval."""
    from ..calibration.stability import judge_stability
    from ..gold import load_gold
    from ..judge.config import JudgeOptions, resolve_judge
    from ..judge.runner import judge_transcripts
    from ..store import Store, make_engine
    from .progress import track

    if split not in ("calibration", "heldout", "all"):
        raise CalibrantError(f"--split must be calibration, heldout or all, not '{split}'")
    gold_set = load_gold(gold, split=None if split == "all" else split)
    config, rub, policy, conc = resolve_judge(
        JudgeOptions(
            model=model,
            api_base=api_base,
            rubric=rubric,
            judge=judge_name,
            concurrency=concurrency,
            temperature=temperature,
        )
    )
    gold_set.validate(rub)
    items = gold_set.item_ids
    with track("answers", total=len(items) * samples) as progress:
        run = judge_transcripts(
            [gold_set.transcripts[i] for i in items],
            rubric=rub,
            config=config,
            store=Store(make_engine()),
            concurrency=conc,
            samples=samples,
            policy=policy,
            seed=seed,
            on_done=lambda j, cached: progress.advance(cached=cached),
        )
    by_item = {i: run.judgments[n * samples : (n + 1) * samples] for n, i in enumerate(items)}
    report = judge_stability(
        items,
        by_item,
        rubric=rub,
        judge=config,
        k=samples,
        clusters=[gold_set.items[i].case for i in items],
        seed=seed,
        min_self_agreement=min_self_agreement,
    )
    report["run_id"] = _record(
        "stability",
        report,
        judge=config,
        arguments={"gold": str(gold), "split": split, "samples": samples},
        seed=seed,
        samples=samples,
    )
    if as_json:
        typer.echo(json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False))
    else:
        render_stability(Console(), report)

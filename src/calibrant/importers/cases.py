"""Which case contract each imported trace ran: one `--case` for all, or per trace from a folder
of cases (`--cases DIR`) matched by the trace's case id (its `calibrant.case` attribute, or a
mapping file `--case-map` from trace id to case id). With `--no-contract`, a trace no case
matches is imported with its end state not judged, instead of refused."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..contracts import CaseContract
from ..errors import ConfigError, InputError
from ..files import field_error, load_case, load_yaml_mapping
from .model import ATTR_CASE, ImportOptions, ParsedTrace

__all__ = ["NO_CASE", "CaseChoice", "Cases"]

NO_CASE = "no-contract"
"""The case id of a trace imported with --no-contract that names no case at all."""


@dataclass(frozen=True)
class CaseChoice:
    """The case a trace ran, or why it has none (`waived`: the end state is not judged)."""

    case: CaseContract | None
    waived: str | None = None


@dataclass
class Cases:
    """The case contracts an import was given, and the trace -> case mapping."""

    options: ImportOptions
    one: CaseContract | None = None
    by_id: dict[str, CaseContract] = field(default_factory=dict)
    files: dict[str, Path] = field(default_factory=dict)
    mapping: dict[str, str] = field(default_factory=dict)

    @classmethod
    def load(cls, options: ImportOptions) -> Cases:
        if options.case is not None and options.cases is not None:
            raise ConfigError(
                "--case and --cases: give one (--case: every trace ran that case; --cases: "
                "each trace's own, by its case id)"
            )
        out = cls(options)
        if options.case is not None:
            out.one = load_case(options.case)
        if options.cases is not None:
            out._load_folder(options.cases)
        if options.case_map is not None:
            out._load_mapping(options.case_map)
        return out

    def _load_folder(self, folder: Path) -> None:
        if not folder.is_dir():
            raise ConfigError(f"--cases {folder}: not a folder; give the folder of case files")
        paths = sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".yml"))
        if not paths:
            raise ConfigError(
                f"--cases {folder}: no case file (*.yaml) in it; give the folder your cases are in"
            )
        for path in paths:
            case = load_case(path)
            if case.case in self.by_id:
                raise InputError(
                    path,
                    f"case {case.case} is also in {self.files[case.case]}; keep one file per "
                    "case id",
                    field="case",
                )
            self.by_id[case.case], self.files[case.case] = case, path

    def _load_mapping(self, path: Path) -> None:
        data, _ = load_yaml_mapping(path, "case map")
        for trace_id, case_id in data.items():
            if not isinstance(case_id, str) or not case_id:
                raise field_error(
                    path,
                    (str(trace_id),),
                    "must be a case id (a string); write the id of the case this trace ran",
                )
            self.mapping[str(trace_id)] = case_id

    @property
    def given(self) -> list[CaseContract]:
        return [self.one] if self.one is not None else list(self.by_id.values())

    def choose(self, trace: ParsedTrace) -> CaseChoice:
        """The case `trace` ran; its `calibrant.case` attribute is set to the chosen id."""
        mapped = self.mapping.get(trace.trace_id)
        if mapped is not None:
            trace.attributes[ATTR_CASE] = mapped
        if self.one is not None:
            return CaseChoice(self.one)
        wanted = trace.attributes.get(ATTR_CASE)
        if wanted is not None and wanted in self.by_id:
            return CaseChoice(self.by_id[wanted])
        if not self.options.no_contract:
            if self.options.cases is None:
                return CaseChoice(None)  # the builder says what is missing
            named = f"names case {wanted}, which" if wanted else "names no case, and"
            raise InputError(
                trace.where,
                f"the trace {named} is not in --cases {self.options.cases}; add its case "
                f"file there, map the trace to a case in --case-map, or import with "
                "--no-contract",
                field=ATTR_CASE,
            )
        if wanted is None:
            trace.attributes[ATTR_CASE] = NO_CASE
            why = "the trace names no case (imported with --no-contract)"
        elif self.options.cases is not None:
            why = (
                f"no case contract for case {wanted} in {self.options.cases} (imported with "
                "--no-contract)"
            )
        else:
            why = f"no case contract was given for case {wanted} (imported with --no-contract)"
        return CaseChoice(None, waived=why)

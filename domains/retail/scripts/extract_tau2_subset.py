"""Write the retail pack's world (`src/calibrant_retail/data/tau2_retail_subset.json`) from a
checkout of tau2-bench's public retail database: the customers the pack's cases name, their
orders and payment methods, and the products those orders (and the cases) refer to, every
variant of each. Amounts stay as the database writes them (dollars); the pack converts them to
cents when it seeds its service.

    python domains/retail/scripts/extract_tau2_subset.py \
        TAU2_BENCH/data/tau2/domains/retail/db.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

USERS = (
    "yusuf_rossi_9620",  # tasks 2, 3
    "mei_kovacs_8020",  # task 6
    "fatima_johnson_7581",  # task 17
    "sofia_hernandez_5364",  # task 24
    "noah_patel_6952",  # task 33
    "daiki_sanchez_3253",  # task 38
    "isabella_lopez_6490",  # task 40
)
EXTRA_PRODUCTS = ("9523456873",)  # the T-shirt, read in tasks 2 and 3
OUT = Path(__file__).resolve().parents[1] / "src" / "calibrant_retail" / "data"


def main(db_path: str) -> None:
    db = json.loads(Path(db_path).read_text(encoding="utf-8"))
    users = {u: db["users"][u] for u in USERS}
    orders = {o: db["orders"][o] for u in users.values() for o in u["orders"]}
    wanted = set(EXTRA_PRODUCTS) | {i["product_id"] for o in orders.values() for i in o["items"]}
    products = {p: db["products"][p] for p in sorted(wanted)}
    out = {"users": users, "orders": orders, "products": products}
    target = OUT / "tau2_retail_subset.json"
    target.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{target}: {len(users)} users, {len(orders)} orders, {len(products)} products")


if __name__ == "__main__":
    main(sys.argv[1])

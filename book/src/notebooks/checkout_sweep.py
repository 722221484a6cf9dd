"""A what-if sweep of the checkout study, analysed with pandas and plotted
with matplotlib: how many tries per layer, under which retry budget, keep
the database's brownout from turning into a retry storm?

Run from the clone's root after `pip install ./python matplotlib`:

    python book/src/notebooks/checkout_sweep.py [OUT.png]

It prints two tables and writes the chart (default `checkout_sweep.png`).
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt
import pandas as pd

import squall

ROOT = Path(__file__).resolve().parents[3]
source = (ROOT / "scenarios" / "checkout.squall").read_text()

# The study as committed, with three changes for the sweep:
# - one param, `attempts`, sets the tries of both retrying layers (the
#   variants' `inner` no longer reaches a retry; the sweep runs on the
#   first variant);
# - both layers get an Envoy-style retry budget: retries in flight at most
#   `budget` % of the requests in flight (100 % is hardly a limit);
# - the report measures what the sweep tabulates, over the brownout.
study = (
    source.replace("param inner = 3", "param inner = 3\n  param budget = 100")
    .replace("attempts $inner", "attempts $attempts")
    .replace(
        "  service db {",
        "  service checkout, payments { budget envoy { budget_percent $budget } }\n  service db {",
    )
    .replace(
        "  report {",
        """  report {
    measure tries = during.db.amplification
    measure db_calls_per_s = per_second(during.db.call_rate)
    measure completed_share = during.completion_rate
    measure wasted_calls = during.db.wasted""",
    )
)
path = ROOT / "target" / "checkout-sweep.squall"
path.parent.mkdir(exist_ok=True)
path.write_text(study)

df = squall.sweep(path, vary={"attempts": [1, 2, 3], "budget": [10, 20, 100]}, jobs=2)
# The params are numbers (float64); these two are whole.
df = df.astype({"attempts": int, "budget": int})

pd.set_option("display.width", 120)
print("one row per point (attempts x budget):")
# Columns are the measures' names; a measure's unit is in df.attrs["units"]
# (db_calls_per_s: "/s"), where the sweep table heads it `db_calls_per_s [/s]`.
print(df[["attempts", "budget", "tries", "db_calls_per_s", "completed_share", "wasted_calls"]].round(3).to_string(index=False))
print()
print("units:", df.attrs["units"])

# Analysis: tries per request at the database, one row per tries setting,
# one column per budget.
wide = df.pivot(index="attempts", columns="budget", values="tries")
wide.columns = [f"budget {b} %" for b in wide.columns]
print()
print("tries per request at the database during the brownout:")
print(wide.reset_index().to_string(index=False, float_format="{:.2f}".format))

fig, ax = plt.subplots(figsize=(6, 4))
for budget, points in df.groupby("budget"):
    ax.plot(points["attempts"], points["tries"], marker="o", label=f"budget {budget} %")
ax.set_xlabel("tries per layer")
ax.set_ylabel("tries per request at the database")
ax.set_xticks([1, 2, 3])
ax.set_title("checkout brownout: tries per layer x retry budget")
ax.legend()
fig.tight_layout()
out = sys.argv[1] if len(sys.argv) > 1 else "checkout_sweep.png"
fig.savefig(out, dpi=100)
print()
print(f"wrote {out}")

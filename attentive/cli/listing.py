"""`attentive datasets`, `recipes` and `demo`: what is here and a first model."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.table import Table
from rich.text import Text

from ..errors import AttentiveError
from .answering import print_metrics
from .app import app, console
from .options import DataDir, Overrides, Recipe


@app.command()
def datasets(data_dir: Optional[Path] = DataDir,
             counts: bool = typer.Option(True, "--counts/--no-counts", help="load each dataset to count it")):
    """The named datasets with split sizes and label counts."""
    from ..data.registry import DATASETS, load_dataset

    table = Table("name", "description", "train", "dev", "test", "labels (train counts)")
    for name, spec in DATASETS.items():
        if not counts:
            table.add_row(name, spec.description, "", "", "", "")
            continue
        try:
            data = load_dataset(name, data_dir=data_dir)
        except AttentiveError as exc:
            table.add_row(name, spec.description, "-", "-", "-", f"[red]{exc}[/]")
            continue
        labels = ", ".join(f"{k}:{v}" for k, v in data.label_counts("train").items()) if data.labels else "-"
        table.add_row(name, spec.description, *(str(len(data.splits.get(s, []))) for s in ("train", "dev", "test")),
                      labels)
    console.print(table)


@app.command()
def recipes():
    """The recipes shipped with attentive."""
    from ..recipes.loader import available_recipes, load_recipe

    table = Table("recipe", "description")
    for name in available_recipes():
        table.add_row(name, Text(load_recipe(name).description or ""))  # Text: "[word; aspect]" is not markup
    console.print(table)


@app.command()
def demo(out: Path = typer.Option(Path("runs/demo"), "--out"), recipe: str = Recipe, set_: list[str] = Overrides,
         show: int = typer.Option(6, "--show")):
    """Train on the bundled SST-2 sample, report test metrics and show attention heatmaps of a few test sentences."""
    from ..api import train as train_model
    from ..data.registry import load_dataset
    from ..explain.terminal import explanation_table

    data = load_dataset("sst2_sample")
    console.print(f"[bold]demo[/]: {recipe} on {data.name} (train {len(data.splits['train'])}, "
                  f"dev {len(data.splits['dev'])}, test {len(data.splits['test'])})")
    model = train_model(data, recipe, out, set_, overwrite=True)  # the demo's folder is its own
    print_metrics(model.evaluate(data, "test"))
    sample = data.splits["test"][:show]
    console.print(explanation_table(model.explain([ex.text for ex in sample]), gold=[ex.label for ex in sample],
                                    plain=console.plain))
    console.print(f"model saved to {out}; try: attentive explain {out} \"a gorgeous and witty film\"")

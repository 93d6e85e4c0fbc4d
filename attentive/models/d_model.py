"""Settings a recipe gives in terms of d_model, the word-vector size (the SSAN paper ties its models' widths and
learning rate to it). Here, in models/, because `build_model` resolves them; the recipe checks and training use the
same."""
from __future__ import annotations

import re

D_MODEL = re.compile(r"(?:(\d+)\s*\*\s*)?d_model")


def resolve_d_model(recipe: dict, d_model: int) -> dict:
    """Fill in `d_model` or `k*d_model` given as an encoder or head option, and a learning rate given as a table
    {d_model: rate}, from which the nearest listed size's rate is taken (the smaller on a tie). In place; returns the
    recipe. A recipe with numbers only is left as it is."""
    for section in ("encoder", "head"):
        for key, value in recipe.get(section, {}).items():
            if isinstance(value, str) and (match := D_MODEL.fullmatch(value.strip())):
                recipe[section][key] = int(match.group(1) or 1) * d_model
    rates = recipe["train"].get("lr")
    if isinstance(rates, dict):
        by_size = {int(size): float(rate) for size, rate in rates.items()}
        recipe["train"]["lr"] = by_size[min(by_size, key=lambda size: (abs(size - d_model), size))]
    return recipe

"""The result table: one row per figure, herdr beside tmux, their ratio, and the issue's target
where it sets one; notes under the table say what could not be measured and why.

Not here: measuring anything.
"""

from collections import namedtuple

# herdr / tmux: a number, or None when that side has no such figure (tmux has no agent
# detection) or it could not be measured (the notes say why).
Row = namedtuple("Row", "name herdr tmux fmt target", defaults=("",))


def against(target, met):
    """The target column: the issue's target and whether this run met it (None: unknown)."""
    if met is None:
        return target
    return f"{target}: {'met' if met else 'missed'}"


def cell(value, fmt):
    return "n/a" if value is None else fmt % value


def ratio(row):
    if row.herdr is None or row.tmux is None:
        return "—"
    if row.tmux:
        return f"{row.herdr / row.tmux:.2f}"
    return "both 0" if not row.herdr else "tmux 0"


def markdown(title, sections, notes):
    """SECTIONS: [(heading, [Row])]; NOTES: [str]."""
    lines = [f"# {title}", ""]
    for heading, rows in sections:
        if not rows:
            continue
        lines += [f"## {heading}", "", "| measure | herdr | tmux | herdr/tmux | target |",
                  "|---|---:|---:|---:|---|"]
        for row in rows:
            lines.append(f"| {row.name} | {cell(row.herdr, row.fmt)} | {cell(row.tmux, row.fmt)} | "
                         f"{ratio(row)} | {row.target} |")
        lines.append("")
    if notes:
        lines += ["## Notes", ""] + [f"- {note}" for note in notes] + [""]
    return "\n".join(lines)

#!/usr/bin/python3
"""Puts back the sections written by hand into a Markdown file a script has just generated.

    Tools/keep-sections.py OLD NEW

NEW is the file as generated (docs/benchmarks.md by Tools/benchmarks) and OLD the file as it was
before. Every `## ` section of OLD whose title NEW lacks (a measurement added by hand, its date in
its title) goes back into NEW after the section it followed in OLD (the nearest earlier one NEW
has), or first when NEW has none of them. NEW is rewritten in place; OLD is left alone.
"""
import sys


def sections(text):
    """The text before the first `## ` heading, and each section as (title, text with its heading)."""
    head, *rest = text.split("\n## ")
    return head, [(part.split("\n", 1)[0], "\n## " + part) for part in rest]


def kept(old, new):
    """`new`'s sections with `old`'s sections that `new` lacks put back in their places."""
    merged = list(new)
    for index, (title, text) in enumerate(old):
        titles = [other for other, _ in merged]
        if title in titles:
            continue
        earlier = next((old[before][0] for before in range(index - 1, -1, -1) if old[before][0] in titles), None)
        merged.insert(titles.index(earlier) + 1 if earlier is not None else 0, (title, text))
    return merged


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    old_path, new_path = sys.argv[1:]
    with open(old_path) as file:
        _, old = sections(file.read())
    with open(new_path) as file:
        head, new = sections(file.read())
    with open(new_path, "w") as file:
        file.write(head + "".join(text for _, text in kept(old, new)))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes the man pages from their sources, so that they never drift from the programs and the docs.

    manpage.py command PROGRAM SECTION VERSION   the page of PROGRAM (an executable that uses swift-argument-parser)
                                                 from its `--experimental-dump-help` JSON: synopsis, description,
                                                 options and every subcommand with its own options
    manpage.py markdown FILE NAME SECTION VERSION  the page NAME from a Markdown document (headings, paragraphs,
                                                 lists, tables, code blocks), such as docs/policy.md

The page goes to standard output. The date is the Debian changelog's (SOURCE_DATE_EPOCH) when set, so that a package
build is reproducible.
"""
import json
import os
import re
import subprocess
import sys
import time

MANUAL = "Screen Time for Linux"


def date():
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", time.time()))
    return time.strftime("%Y-%m-%d", time.gmtime(epoch))


def escape(text):
    """Text as roff reads it literally: backslashes escaped, no line starting with a control character."""
    text = text.replace("\\", "\\e")
    return re.sub(r"^([.'])", r"\\&\1", text, flags=re.MULTILINE)


def literal(text):
    """A command-line word in bold, with its hyphens as minus signs (what a reader types)."""
    return "\\fB" + escape(text).replace("-", "\\-") + "\\fR"


def inline(text):
    """Markdown's inline marks as roff fonts: `code`, **strong**, *emphasis*, [text](address)."""
    parts = re.split(r"(`[^`]+`)", text)
    out = []
    for part in parts:
        if part.startswith("`") and part.endswith("`") and len(part) > 1:
            out.append(literal(part[1:-1]))
            continue
        part = escape(part)
        part = re.sub(r"\[([^\]]+)\]\(([^)]+)\)", r"\1 <\2>", part)
        part = re.sub(r"\*\*([^*]+)\*\*", r"\\fB\1\\fR", part)
        part = re.sub(r"(?<![\w*])\*([^*\s][^*]*)\*(?![\w*])", r"\\fI\1\\fR", part)
        out.append(part)
    return "".join(out)


def header(name, section, version, title):
    return [
        "'\\\" t",
        f'.TH "{name.upper()}" "{section}" "{date()}" "screentime {version}" "{MANUAL}"',
        ".SH NAME",
        f"{escape(name)} \\- {escape(title)}",
        # Left-justified, unhyphenated: paths and keys in narrow table cells cannot be adjusted or broken well.
        ".ad l",
        ".nh",
    ]


# ---------------------------------------------------------------- command pages


def option_names(argument):
    names = []
    for name in argument.get("names", []):
        names.append(("-" if name["kind"] == "short" else "--") + name["name"])
    return names


def option_heading(argument):
    if argument["kind"] == "positional":
        return "\\fI" + escape(argument.get("valueName", "value")) + "\\fR"
    heading = ", ".join(literal(name) for name in option_names(argument))
    if argument["kind"] == "option":
        heading += " \\fI" + escape(argument.get("valueName", "value")) + "\\fR"
    return heading


def shown(subcommand):
    """Whether a subcommand gets a section: not hidden, and not the parser's own `help` (which `--help` covers)."""
    return subcommand.get("shouldDisplay", True) and subcommand["commandName"] != "help"


def synopsis(path, command):
    words = [literal(" ".join(path))]
    for argument in command.get("arguments", []):
        if not argument.get("shouldDisplay", True) or argument["kind"] == "positional":
            continue
        word = literal(option_names(argument)[-1])
        if argument["kind"] == "option":
            word += " \\fI" + escape(argument.get("valueName", "value")) + "\\fR"
        if argument.get("isOptional"):
            word = "[" + word + "]"
        words.append(word + ("..." if argument.get("isRepeating") else ""))
    for argument in command.get("arguments", []):
        if argument.get("shouldDisplay", True) and argument["kind"] == "positional":
            word = "\\fI" + escape(argument.get("valueName", "value")) + "\\fR"
            words.append(("[" + word + "]" if argument.get("isOptional") else word)
                         + ("..." if argument.get("isRepeating") else ""))
    if any(map(shown, command.get("subcommands", []))):
        words.append("\\fIcommand\\fR")
    return " ".join(words)


def options(command):
    lines = []
    for argument in command.get("arguments", []):
        if not argument.get("shouldDisplay", True):
            continue
        lines += [".TP", option_heading(argument)]
        text = escape(argument.get("abstract", ""))
        if argument.get("defaultValue") is not None:
            text += f" (default: {escape(str(argument['defaultValue']))})"
        if argument.get("discussion"):
            discussion = argument["discussion"]
            if isinstance(discussion, dict):
                discussion = "; ".join(f"{k}: {v}" for k, v in discussion.get("enumerated", {}).items()) \
                    if "enumerated" in discussion else json.dumps(discussion)
            text += " " + escape(str(discussion))
        lines.append(text or ".")
    return lines


def subcommands(path, command):
    lines = []
    for sub in filter(shown, command.get("subcommands", [])):
        subpath = path + [sub["commandName"]]
        lines += [".SS " + escape(" ".join(subpath)), synopsis(subpath, sub), ".PP", escape(sub.get("abstract", ""))]
        if sub.get("discussion"):
            lines += [".PP", escape(sub["discussion"])]
        if any(a.get("shouldDisplay", True) for a in sub.get("arguments", [])):
            lines += [".RS"] + options(sub) + [".RE"]
        lines += subcommands(subpath, sub)
    return lines


def command_page(program, section, version):
    dump = json.loads(subprocess.run([program, "--experimental-dump-help"], check=True, capture_output=True,
                                     text=True).stdout)
    command = dump["command"]
    name = command["commandName"]
    lines = header(name, section, version, command.get("abstract", "").rstrip(".").split(": ", 1)[-1])
    lines += [".SH SYNOPSIS", synopsis([name], command)]
    lines += [".SH DESCRIPTION", escape(command.get("abstract", ""))]
    if command.get("discussion"):
        lines += [".PP", escape(command["discussion"])]
    lines += [".SH OPTIONS"] + options(command)
    if any(map(shown, command.get("subcommands", []))):
        lines += [".SH COMMANDS"] + subcommands([name], command)
    related = [("screentime", 1), ("screentimed", 8), ("screentime-policy", 5)]
    lines += [".SH SEE ALSO", ", ".join(f"\\fB{n}\\fR({s})" for n, s in related if n != name)
              + ", \\fBsystemctl\\fR(1), \\fBjournalctl\\fR(1)"]
    return lines


# ---------------------------------------------------------------- Markdown pages


def table(rows):
    cells = [[c.strip() for c in row.strip().strip("|").split("|")] for row in rows]
    head, body = cells[0], [r for r in cells[2:]]
    columns = len(head)
    lines = [".TS", "allbox tab(@);", " ".join(["lb"] * (columns - 1) + ["lbx"]) + ".",
             "@".join(f"T{{\n{inline(c)}\nT}}" for c in head), ".T&", " ".join(["l"] * (columns - 1) + ["lx"]) + "."]
    for row in body:
        row = (row + [""] * columns)[:columns]
        lines.append("@".join(f"T{{\n{inline(c)}\nT}}" for c in row))
    return lines + [".TE"]


def markdown_page(path, name, section, version):
    source = open(path, encoding="utf-8").read().splitlines()
    title = source[0].lstrip("# ").strip() if source and source[0].startswith("# ") else name
    lines = header(name, section, version, title[0].lower() + title[1:])
    lines += [".SH DESCRIPTION"]
    i = 1
    while i < len(source):
        line = source[i]
        if line.startswith("```"):
            block = []
            i += 1
            while i < len(source) and not source[i].startswith("```"):
                block.append(escape(source[i]))
                i += 1
            lines += [".PP", ".EX"] + block + [".EE"]
        elif line.startswith("## ") or line.startswith("# "):
            lines.append(".SH " + inline(line.lstrip("# ").strip()).upper())
        elif line.startswith("### "):
            lines.append(".SS " + inline(line[4:].strip()))
        elif line.startswith("|"):
            rows = []
            while i < len(source) and source[i].startswith("|"):
                rows.append(source[i])
                i += 1
            lines += [".PP"] + table(rows)
            continue
        elif re.match(r"^\s*([-*]|\d+\.) ", line):
            item = [re.sub(r"^\s*([-*]|\d+\.) ", "", line)]
            i += 1
            while i < len(source) and source[i].startswith("  ") and source[i].strip():
                item.append(source[i].strip())
                i += 1
            lines += [".IP \\(bu 2", inline(" ".join(item))]
            continue
        elif line.strip():
            paragraph = [line.strip()]
            i += 1
            while i < len(source) and source[i].strip() and not re.match(r"^(#|```|\||\s*([-*]|\d+\.) )", source[i]):
                paragraph.append(source[i].strip())
                i += 1
            lines += [".PP", inline(" ".join(paragraph))]
            continue
        i += 1
    lines += [".SH SEE ALSO", "\\fBscreentime\\fR(1), \\fBscreentimed\\fR(8)"]
    return lines


def main(arguments):
    if len(arguments) == 4 and arguments[0] == "command":
        page = command_page(arguments[1], arguments[2], arguments[3])
    elif len(arguments) == 5 and arguments[0] == "markdown":
        page = markdown_page(arguments[1], arguments[2], arguments[3], arguments[4])
    else:
        sys.exit(__doc__)
    sys.stdout.write("\n".join(page) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])

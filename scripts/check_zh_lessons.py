#!/usr/bin/env python3
"""Quick structural check of the Chinese lessons (issue #18): lessons/NN_slug/lesson.zh.md against
lessons/NN_slug/lesson.md, read the way engine/src/content/lesson.cpp reads them (fenced code is text,
"## " outside code starts a step, a directive is a "<!-- ... -->" line of its own).

Errors (exit 1), each printed as  lesson.zh.md:LINE: what
  - a lesson.md without a lesson.zh.md beside it (only for the lessons named, if any are);
  - no "# " title before the first step;
  - a different number of steps ("## " headings);
  - the directives (variant, size, set, check, measured, any other) not the same lines, verbatim,
    in the same order and in the same step (or both in the intro);
  - "<!--" in a line that is not a whole directive line;
  - a step with a different number of numbered items ("1. ..." at the start of a line: the
    questions, and any other numbered list);
  - fenced code blocks not the same shape, in the same order and the same steps: the same lines,
    the same ones at the margin (a block of code stays code; its words and comments may be
    translated, as the pseudocode of most lessons is, and continuation lines re-aligned);
  - a check's value not written in the Chinese text of its step (the intro's, before step 1), as
    tests/cpu/test_lesson_text.cpp requires of the English;
  - emphasis markers (* or **) that CommonMark (md4c) would show as literal asterisks, or leave
    unclosed in a paragraph: next to Chinese punctuation, "**简答。**然后" does not close.
Warnings (printed, exit 0 unless --strict): numbers in a step's prose that occur in only one of
the two languages (the Chinese must state the English numbers and no others).

Usage: scripts/check_zh_lessons.py [--strict] [--quiet] [LESSON ...]   (LESSON: "03" or a folder name)
"""
import argparse, os, re, sys, unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LESSONS = os.path.join(ROOT, "lessons")

NUMBERED = re.compile(r"^\d+\.\s")


def shape(block):
    """A code block's shape: its lines, and which of them start at the margin (continuation lines
    may be aligned anew under wider Chinese text)."""
    return [line[:1] not in (" ", "") for line in block.split("\n")]
NUMBER = re.compile(r"\d+(?:\.\d+)?(?!D\b)")   # "3D" is 三维


def is_fence(line):
    t = line.strip()
    return t.startswith("```") or t.startswith("~~~")


def is_directive(line):
    t = line.strip()
    return t.startswith("<!--") and t.endswith("-->") and len(t) >= 7


class Parsed:
    def __init__(self):
        self.title = None
        self.steps = []          # [(line number, heading text)]
        self.directives = []     # [(step index or -1, line number, text)]
        self.numbered = {}       # step index -> count
        self.code = []           # [(step index, line number, block text)]
        self.text = {}           # step index -> prose lines [(line number, text)] (no directives)
        self.stray = []          # [(line number, text)]: "<!--" not as a directive line


def parse(path):
    p = Parsed()
    step, in_code, block, block_line = -1, False, [], 0
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for n, raw in enumerate(lines, 1):
        line = raw.rstrip("\r")
        if is_fence(line):
            if not in_code:
                in_code, block, block_line = True, [line], n
            else:
                block.append(line)
                p.code.append((step, block_line, "\n".join(block)))
                in_code = False
            continue
        if in_code:
            block.append(line)
            continue
        if is_directive(line):
            p.directives.append((step, n, line.strip()))
            continue
        if "<!--" in line or "-->" in line:
            p.stray.append((n, line))
        if p.title is None and step < 0 and line.startswith("# "):
            p.title = line[2:].strip()
            continue
        if line.startswith("## "):
            step += 1
            p.steps.append((n, line[3:].strip()))
        if NUMBERED.match(line):
            p.numbered[step] = p.numbered.get(step, 0) + 1
        p.text.setdefault(step, []).append((n, line))
    if in_code:
        p.stray.append((block_line, "a fenced code block is never closed"))
    return p


def check_value(directive):
    """'<!-- check: T=10 | halo fraction = 78% -->' -> '78%' (as parse_check reads it)."""
    body = directive.strip()[4:-3].strip()
    if not body.startswith("check:"):
        return None
    text = body[len("check:"):].strip()
    claim = text.split("|", 1)[1] if "|" in text else text
    eq = claim.rfind("=")
    return claim[eq + 1:].strip() if eq >= 0 else None


# ---- emphasis, as CommonMark decides it -------------------------------------------------------

def is_punct(c):
    return c != "" and unicodedata.category(c)[0] in "PS"


def is_space(c):
    return c == "" or c.isspace()


def strip_code_spans(line):
    return re.sub(r"(`+)(.+?)\1", lambda m: "x" * len(m.group(0)), line)


def emphasis_errors(lines):
    """lines: [(line number, text)] of one step. Returns [(line number, message)]."""
    errors = []
    paragraph = []   # [(line number, run length, can_open, can_close)]

    def close_paragraph():
        stack = []
        for n, length, can_open, can_close in paragraph:
            if can_close and stack and stack[-1][1] == length:
                stack.pop()
            elif can_open:
                stack.append((n, length))
            else:
                errors.append((n, "'%s' closes nothing" % ("*" * length)))
        for n, length in stack:
            errors.append((n, "'%s' is never closed in its paragraph (a closing run after "
                                  "punctuation needs a space or punctuation after it)" % ("*" * length)))
        paragraph.clear()

    for n, raw in lines:
        if not raw.strip() or raw.startswith("#") or raw.lstrip().startswith("|"):
            close_paragraph()
            if not raw.lstrip().startswith("|"):
                continue
        line = strip_code_spans(raw)
        # a list bullet "- " / "* " or a quote marker is not emphasis
        line = re.sub(r"^(\s*>)?\s*[-*]\s", lambda m: " " * len(m.group(0)), line)
        if re.match(r"^\s*(>\s*)?(\d+\.|[-*])\s", raw) and paragraph:
            close_paragraph()
        for m in re.finditer(r"\*+", line):
            before = line[m.start() - 1] if m.start() > 0 else ""
            after = line[m.end()] if m.end() < len(line) else ""
            left = not is_space(after) and (not is_punct(after) or is_space(before) or is_punct(before))
            right = not is_space(before) and (not is_punct(before) or is_space(after) or is_punct(after))
            if not left and not right:
                errors.append((n, "'%s' next to '%s' and '%s' is shown as literal asterisks"
                               % (m.group(0), before, after)))
                continue
            paragraph.append((n, len(m.group(0)), left, right))
        if raw.lstrip().startswith("|"):
            close_paragraph()
    close_paragraph()
    return errors


# ---- numbers ------------------------------------------------------------------------------------

def numbers(lines):
    out = set()
    for _, line in lines:
        for m in NUMBER.finditer(strip_code_spans(line)):
            out.add(m.group(0))
    return out


def check_lesson(folder, strict, quiet):
    en_path = os.path.join(LESSONS, folder, "lesson.md")
    zh_path = os.path.join(LESSONS, folder, "lesson.zh.md")
    rel = os.path.join("lessons", folder, "lesson.zh.md")
    errors, warnings = [], []
    if not os.path.exists(zh_path):
        return ["%s: missing" % rel], []
    en, zh = parse(en_path), parse(zh_path)

    def err(line, msg):
        errors.append("%s:%s: %s" % (rel, line, msg))

    if zh.title is None:
        err(1, "no '# ' title before the first step")
    for n, line in zh.stray:
        err(n, "'<!--' or '-->' that is not a directive line of its own: %s" % line.strip())
    if len(en.steps) != len(zh.steps):
        err(zh.steps[-1][0] if zh.steps else 1,
            "%d steps ('## ' headings), the English has %d" % (len(zh.steps), len(en.steps)))

    for i in range(max(len(en.directives), len(zh.directives))):
        e = en.directives[i] if i < len(en.directives) else None
        z = zh.directives[i] if i < len(zh.directives) else None
        if e is None or z is None or e[0] != z[0] or e[2] != z[2]:
            where = z[1] if z else (zh.directives[-1][1] if zh.directives else 1)
            err(where, "directive %d differs from lesson.md:%s\n    en (step %s): %s\n    zh (step %s): %s"
                % (i + 1, e[1] if e else "-", e[0] + 1 if e else "-", e[2] if e else "(none)",
                   z[0] + 1 if z else "-", z[2] if z else "(none)"))
            break

    for s in range(-1, max(len(en.steps), len(zh.steps))):
        a, b = en.numbered.get(s, 0), zh.numbered.get(s, 0)
        if a != b:
            where = zh.steps[s][0] if 0 <= s < len(zh.steps) else 1
            err(where, "%s: %d numbered items, the English has %d"
                % ("intro" if s < 0 else "step %d" % (s + 1), b, a))

    if [(s, shape(c)) for s, _, c in en.code] != [(s, shape(c)) for s, _, c in zh.code]:
        for i, (e, z) in enumerate(zip(en.code + [None] * 99, zh.code + [None] * 99)):
            if e is None and z is None:
                break
            if e is None or z is None or (e[0], shape(e[2])) != (z[0], shape(z[2])):
                err(z[1] if z else 1, "code block %d is not shaped like the English one (lesson.md:%s): its lines"
                    % (i + 1, e[1] if e else "-"))
                break

    for s, n, d in zh.directives:
        value = check_value(d)
        if value is None:
            continue
        text = "\n".join(t for _, t in zh.text.get(s, []))
        if s >= 0:   # a step's text includes its code blocks
            text += "\n".join(c for cs, _, c in zh.code if cs == s)
        if value not in text:
            err(n, "the checked value '%s' is not written in the %s's text"
                % (value, "intro" if s < 0 else "step"))

    for s, lines in sorted(zh.text.items()):
        for n, msg in emphasis_errors(lines):
            err(n, msg)

    for s in range(-1, min(len(en.steps), len(zh.steps))):
        a, b = numbers(en.text.get(s, [])), numbers(zh.text.get(s, []))
        only_en, only_zh = sorted(a - b), sorted(b - a)
        name = "intro" if s < 0 else "step %d (%s)" % (s + 1, zh.steps[s][1])
        where = zh.steps[s][0] if s >= 0 else 1
        if only_en:
            warnings.append("%s:%s: %s: numbers only in the English: %s" % (rel, where, name, " ".join(only_en)))
        if only_zh:
            warnings.append("%s:%s: %s: numbers only in the Chinese: %s" % (rel, where, name, " ".join(only_zh)))
    return errors, warnings


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("lessons", nargs="*", help="lesson folders or number prefixes (default: all)")
    ap.add_argument("--strict", action="store_true", help="warnings are errors too")
    ap.add_argument("--quiet", action="store_true", help="do not print warnings")
    args = ap.parse_args()
    folders = sorted(d for d in os.listdir(LESSONS)
                     if os.path.isfile(os.path.join(LESSONS, d, "lesson.md")))
    if args.lessons:
        want = []
        for key in args.lessons:
            match = [d for d in folders if d == key or d.split("_")[0].lstrip("0") == key.lstrip("0")]
            if not match:
                print("no lesson '%s'" % key, file=sys.stderr)
                return 2
            want += match
        folders = want
    failed = False
    for folder in folders:
        errors, warnings = check_lesson(folder, args.strict, args.quiet)
        for e in errors:
            print("error: " + e)
        if not args.quiet:
            for w in warnings:
                print(("error: " if args.strict else "warning: ") + w)
        failed |= bool(errors) or (args.strict and bool(warnings))
        if not errors and not (args.strict and warnings):
            print("ok: lessons/%s/lesson.zh.md" % folder)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

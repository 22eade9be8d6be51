#!/usr/bin/env python3
"""Fails when an interface string is written in English in the code instead of coming from the
string tables (strings/en.json, strings/zh.json) through tr()/trf(), or from say("en", "zh").

    check_ui_strings.py SOURCE_ROOT      scans gui/*.cpp and cli/*.cpp; exit 1 and one line per find
    check_ui_strings.py SOURCE_ROOT --known FILE
                                         the same, but the findings listed in FILE (one "path<TAB>text" a
                                         line: strings not translated yet) are counted, not failed; any
                                         other finding fails
    check_ui_strings.py --self-test      runs the checker on planted examples: each bad one must be
                                         found and each good one passed

What counts as an interface string: a string literal with an English word (two letters or more)
that is an argument of a call that puts text on the screen or the terminal (the ImGui widgets and
our own helpers in KINDS below, the CLI's print/CliError/CLI11 help), or is assigned to a message
field the panels show (notice, note, export_message ...). Literals inside tr(), trf(), say(),
quantity_label() and limiter_label() are translated already. Never flagged: an ImGui ID (from
"##" on), printf specifiers (%s, %.1f), and the words in ALLOWED (units, proper names, API and
flag names, keys of machine output). A line may opt out with the comment `// ui-strings: not
shown` when the text is not for people (a log parsed by scripts, a key); use it sparingly.
"""
import re
import sys
from pathlib import Path

# Calls whose string arguments are drawn or printed.
IMGUI = (r"Text|TextUnformatted|TextWrapped|TextDisabled|TextColored|BulletText|LabelText|Button|SmallButton|"
         r"MenuItem|BeginMenu|SetTooltip|Checkbox|RadioButton|SliderInt|SliderFloat|DragInt|DragFloat|InputText|"
         r"InputTextWithHint|InputTextMultiline|InputInt|InputFloat|Combo|BeginCombo|TreeNode|TreeNodeEx|Selectable|"
         r"CollapsingHeader|BeginTabItem|TabItemButton|ProgressBar|TableSetupColumn|TableHeader|Begin|BeginPopupModal")
HELPERS = (r"HelpMarker|WrappedTooltip|BeginDataTable|Headline|headline|badge|row|label_with_help|show_reason|"
           r"tooltip_when_hovered|StatusLine|KeyValue|Caption|AddText|TextWithHelp|WrappedText|WrappedTextColored|WrappedTextDisabled|TextEllipsized")
CLI = (r"print|printf|fprintf|puts|fputs|CliError|usage_error|add_option|add_flag|add_subcommand|App|description|section|"
       r"footer|add_row|Table|fail|die|warn|error_line")
CALL = re.compile(r"(?:\bImGui::(?:" + IMGUI + r")|\b(?:" + HELPERS + r")|(?:\bstd::|\bfmt::|\bCLI::|->|\.|\b)(?:" +
                  CLI + r"))\s*\(")
# Message fields shown on screen (status bar, notes under the editor, export results).
FIELD = re.compile(r"\b(?:notice|note|export_message|status_message|size_error|message|title|summary|caption|"
                   r"x_label|y_label|label|tooltip|help)\s*(?:=|\+=)\s*(?!=)")
# Output appended to a CLI text block: out += "...".
APPEND = re.compile(r"\bout\s*\+=\s*")
TRANSLATED = re.compile(r"\b(?:tr|trf|say|quantity_label|limiter_label)\s*\(")
# Machine output keeps English keys: a CSV line's cells and a JSON object's keys are not scanned.
MACHINE = re.compile(r"\b(?:csv_line\s*\(|json\s*\{)")
OPT_OUT = "ui-strings: not shown"
# A region of developer output (latency logs, the headless walk's lines that scripts parse) is
# bracketed by these two comments and not scanned.
REGION_OFF, REGION_ON = "// ui-strings: off", "// ui-strings: on"

# Words that stay as they are in both languages.
ALLOWED = {
    # units and rates
    "ms", "us", "ns", "GB", "MB", "KB", "kB", "GiB", "MiB", "KiB", "B", "s", "px", "GHz", "MHz", "GFLOP", "TFLOP",
    "FLOP", "FLOPs", "OP", "GB/s", "req", "x", "KB/SM",
    # proper names, hardware, APIs and formats
    "NVIDIA", "CUDA", "NVRTC", "ptxas", "cuBLAS", "SGEMM", "CUPTI", "GPU", "GPUs", "CPU", "SM", "SMs", "DRAM", "L1",
    "L2", "FP32", "FMA", "PNG", "CSV", "JSON", "EGL", "GL", "OpenGL", "ImGui", "TileLab", "tilelab", "Nsight", "Compute",
    "English", "sm", "PASS", "FAIL", "ERR", "TODO", "TODOs", "OK", "ID", "id", "Slurm", "ssh", "srun", "docker", "exec",
    "stdio", "gres", "gpu", "tilelab-cli", "tilelab-gpu-worker", "KEY", "NAME", "VALUE", "HOST", "NN", "cu",
    "Ctrl", "F5", "F11", "PgUp", "PgDn", "Esc", "Tab", "Shift", "Alt", "Enter",
    "nan", "inf", "e", "k", "M", "G", "T", "ld", "st", "sum",
}
# Parameter and macro names written in capitals (never translated).
PARAMS = {"TILE", "SWIZZLE", "RADIUS", "FLOAT", "UNROLL", "COARSEN", "MAXREG", "BOUNDS", "TODO", "TODOS", "PASS", "FAIL",
          "NVRTC", "CUPTI", "CUDA", "SGEMM", "DRAM", "NVIDIA", "JSON", "HOST", "NAME", "VALUE", "PATH", "FILE", "LESSON",
          "SIZE", "XDG_DATA_HOME", "HOME", "LANG", "NO_COLOR"}
WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'./-]*[A-Za-z0-9]|[A-Za-z]")
PRINTF = re.compile(r"%[-+ #0]*\d*(?:\.\d+)?(?:hh|h|ll|l|z|j|t|L)?[diouxXeEfgGcspn%]")
FMT = re.compile(r"\{[^{}]*\}")


def strip_comments(code):
    """Removes // and /* */ comments, keeping string and character literals (and line numbers)."""
    out, i, n = [], 0, len(code)
    while i < n:
        c = code[i]
        if code.startswith("//", i):
            j = code.find("\n", i)
            comment = code[i:] if j < 0 else code[i:j]
            # The opt-out marker survives as a token the scanner sees on that line.
            out.append(" @@OPT_OUT@@ " if OPT_OUT in comment else "")
            i = n if j < 0 else j
        elif code.startswith("/*", i):
            j = code.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * code.count("\n", i, j))
            i = j
        elif c == 'R' and code.startswith('R"', i) and (i == 0 or not (code[i - 1].isalnum() or code[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', code[i:])
            end = code.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(code[i:j])
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and code[j] != c:
                j += 2 if code[j] == "\\" else 1
            out.append(code[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def literals(text):
    """(offset, value) of each ordinary string literal in `text` (adjacent ones joined)."""
    found = []
    for m in re.finditer(r'"((?:[^"\\\n]|\\.)*)"', text):
        found.append((m.start(), m.group(1)))
    return found


def matching_paren(text, open_at):
    depth, i, n = 0, open_at, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return n - 1


def blank_translated(args):
    """The argument text with every tr()/trf()/say()/... call blanked out."""
    out = list(args)
    for m in list(TRANSLATED.finditer(args)) + list(MACHINE.finditer(args)):
        end = matching_paren(args, m.end() - 1)
        for k in range(m.start(), end + 1):
            if out[k] != "\n":
                out[k] = " "
    return "".join(out)


def english_words(value):
    visible = value.split("##", 1)[0]                      # an ImGui ID is not shown
    visible = re.sub(r"\\[nt\"\\]|\\x[0-9a-fA-F]{2}", " ", visible)
    visible = PRINTF.sub(" ", visible)
    visible = FMT.sub(" ", visible)
    if visible.lstrip().startswith("-"):                  # a flag: --set, -o
        visible = re.sub(r"(?<![A-Za-z])--?[a-z0-9][a-z0-9-]*", " ", visible)
    words = [w for w in WORD.findall(visible) if len(w) >= 2 or w.isalpha() and w in "aAI" and False]
    words = [w.strip("./-'") for w in words]
    return [w for w in words if len(w) >= 2 and w not in ALLOWED
            and (not re.fullmatch(r"[A-Z0-9_]+|sm_\d+|\d.*", w) or (re.fullmatch(r"[A-Z]{4,}", w) and w not in PARAMS))
            and not re.fullmatch(r"[a-z]+(?:_[a-z0-9]+)+", w) and "/" not in w and "." not in w and "__" not in w
            and not re.fullmatch(r"[a-z]+\d[a-z0-9]*", w)]


def spans(code):
    """(start, end) of every region whose literals are shown: call arguments, field assignments."""
    for m in CALL.finditer(code):
        yield m.start(), matching_paren(code, m.end() - 1)
    for pattern in (FIELD, APPEND):
        for m in pattern.finditer(code):
            end = code.find(";", m.end())
            yield m.start(), (len(code) if end < 0 else end)


def blank_regions(code):
    """Blanks every `// ui-strings: off` ... `// ui-strings: on` region (newlines kept)."""
    out, at = [], 0
    while True:
        start = code.find(REGION_OFF, at)
        if start < 0:
            out.append(code[at:])
            return "".join(out)
        end = code.find(REGION_ON, start)
        end = len(code) if end < 0 else end
        out.append(code[at:start])
        out.append("\n" * code.count("\n", start, end))
        at = end


def check_text(name, code):
    code = strip_comments(blank_regions(code))
    problems, seen = [], set()
    line_starts = [0] + [i + 1 for i, c in enumerate(code) if c == "\n"]

    def line_of(offset):
        lo, hi = 0, len(line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if line_starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1

    lines = code.split("\n")
    for start, end in spans(code):
        region = blank_translated(code[start:end + 1])
        # CLI11's first argument is the option's or subcommand's name, typed by people as it is.
        named = re.match(r"(?:->|\.)?\s*add_(?:option|flag|subcommand)\s*\(\s*" + r'"(?:[^"\\\n]|\\.)*"', region)
        if named:
            region = " " * named.end() + region[named.end():]
        for offset, value in literals(region):
            at = start + offset
            line = line_of(at)
            if (line, value) in seen or "@@OPT_OUT@@" in lines[line - 1]:
                continue
            words = english_words(value)
            if words:
                seen.add((line, value))
                problems.append(f"{name}:{line}: \"{value}\" is shown in English ({', '.join(words[:4])}): "
                                f"put it in strings/*.json and use tr()/trf()")
    return problems


def check_tree(root):
    root = Path(root)
    problems = []
    for folder in ("gui", "cli"):
        for path in sorted((root / folder).glob("*.cpp")):
            problems += check_text(f"{folder}/{path.name}", path.read_text(encoding="utf-8"))
    return problems


PLANTED_BAD = [
    'ImGui::Text("Blocks per SM: %d", n);',
    'ImGui::TextUnformatted("Occupancy");',
    'if (ImGui::Button("Pin current##pin")) {}',
    'HelpMarker("What the tile size trades.");',
    'ImGui::SetTooltip("%s is too big", name);',
    'state.notice = "Settings not saved";',
    'ImGui::MenuItem(flag ? "Show" : tr("menu.hide").c_str());',
    'if (ImGui::BeginTabItem("Tiles")) {}',
    'std::fprintf(stderr, "tilelab: no such lesson\\n");',
    'app.add_flag("--json", f.json, "Print JSON instead of a table");',
    'out += "Variants\\n\\n";',
    'BeginDataTable("levels", {{"level", 1.3f}, {"model"}});',
    'ImGui::TextUnformatted("MODEL MODE");',
    'label_with_help(tr("params.size").c_str(), (help + ". Press Enter to apply.").c_str());',
]
PLANTED_GOOD = [
    'ImGui::Text("%s: %d", tr("occupancy.blocks").c_str(), n);',
    'ImGui::TextUnformatted(tr("tab.Occupancy").c_str());',
    'if (ImGui::Button((tr("compare.pin_current") + "##pin").c_str())) {}',
    'ImGui::BeginChild("##model_banner", ImVec2(0, h));',
    'ImGui::Text("%.1f GB/s", gbps);',
    'ImGui::Text("%d ms", t);',
    'state.notice = trf("notice.bad_field", field);',
    'HelpMarker(say("What {} trades.", "{} 的取舍。", name).c_str());',
    'ImGui::MenuItem("English", nullptr, on);',
    'ImGui::Text("NVIDIA %s (sm_%d)", name, arch);',
    'std::fprintf(stderr, "latency: %.1f ms\\n", ms);  // ui-strings: not shown',
    'j["status"] = outcome.status;',
    'plot::DrawFigure("##sweep1d", ImVec2(-1, h), fig);',
    'auto* run = app.add_subcommand("run", tr("clihelp.run"));',
    'print(csv_line({"variant", "family", "title"}));',
    'print(json{{"mode", dev.gpu ? "gpu" : "model"}, {"device", dev}}.dump(2) + "\\n");',
    '// ui-strings: off\nstd::fprintf(stderr, "latency: first frame %.1f ms\\n", ms);\n// ui-strings: on',
    'ImGui::TextUnformatted(Hw(r, (std::string("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_") + op + ".sum").c_str()).c_str());',
]


def self_test():
    failures = 0
    for snippet in PLANTED_BAD:
        if not check_text("planted", snippet):
            print(f"self-test: NOT found: {snippet}")
            failures += 1
    for snippet in PLANTED_GOOD:
        found = check_text("planted", snippet)
        if found:
            print(f"self-test: wrongly flagged: {snippet}\n  {found[0]}")
            failures += 1
    whole = "\n".join(PLANTED_GOOD + PLANTED_BAD[:1])
    if len(check_text("planted", whole)) != 1:
        print("self-test: one bad line among good ones is not found exactly once")
        failures += 1
    print(f"check_ui_strings self-test: {len(PLANTED_BAD)} planted English strings, {len(PLANTED_GOOD)} translated "
          f"ones: {'ok' if not failures else f'{failures} wrong'}")
    return 1 if failures else 0


def read_known(path):
    known = set()
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            where, _, text = line.partition("\t")
            known.add((where, text))
    return known


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--known"):
        print(__doc__)
        return 2
    known = read_known(argv[3]) if len(argv) == 4 else set()
    problems, still_known, seen_known = [], 0, set()
    for p in check_tree(argv[1]):
        where, text = p.split(":", 1)[0], p.split('"', 1)[1].rsplit('" is shown', 1)[0]
        if (where, text) in known:
            still_known += 1
            seen_known.add((where, text))
        else:
            problems.append(p)
    for p in problems:
        print(p)
    for where, text in sorted(known - seen_known):
        print(f"check_ui_strings: translated now, drop it from the list: {where}\t{text}")
    print(f"check_ui_strings: {len(problems)} interface strings in English in gui/ and cli/"
          + (f" ({still_known} more listed as not translated yet)" if known else ""))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

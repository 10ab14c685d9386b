"""The package's layers, checked by walking its imports: no import cycles, each layer imports
only layers below it, and the pure core (tiles, log, rules, folds) pulls in no I/O framework —
neither statically nor when it runs."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SRC / "mjledger"

# Lowest first. A module may import its own layer and those below.
LAYERS: list[tuple[str, ...]] = [
    (
        "mjledger.errors",
        "mjledger._checks",
        "mjledger._replace",
        "mjledger._text",
        "mjledger._growing",
        "mjledger._gc",
        "mjledger._codegen",
        "mjledger._command_table",
        "mjledger._streams",
        "mjledger._codecache",
        "mjledger._msgspec",
        "mjledger._lazy",
    ),
    ("mjledger.tiles",),
    # The log's values: what a line says, in Python (no rule set is known here).
    ("mjledger.log.events",),
    ("mjledger.rules",),
    # The log's wire format: a line's ``ruleset`` and ``rules`` are checked against the
    # registered rule sets and their house-rules classes, so the codec sits above them.
    ("mjledger.log",),
    ("mjledger.fold", "mjledger.sim"),
    ("mjledger.store",),
    ("mjledger.explain",),
    (
        "mjledger.cli",
        "mjledger.http",
        "mjledger._console",
        "mjledger._replay_json",
        "mjledger._spool",
    ),
]
# The top-level package and the modules kept at their documented 0.1 paths re-export others.
FACADES = {
    "mjledger",
    "mjledger.__main__",
    "mjledger.ledger",
    "mjledger.decompose",
    "mjledger.fan_sichuan",
    "mjledger.fan_hongkong",
}
CORE_LAYERS = 6  # everything below the store
FORBIDDEN_IN_CORE = {"eventsourcing", "click", "rich", "sqlite3"}


def _in_core(module: str) -> bool:
    return module not in FACADES and layer_of(module) < CORE_LAYERS


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def layer_of(module: str) -> int:
    best, found = -1, -1
    for i, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, found = len(prefix), i
    assert found >= 0, f"{module} is in no layer"
    return found


def _runtime_imports(tree: ast.Module, typing: bool = False) -> list[ast.Import | ast.ImportFrom]:
    """Imports that run: those under ``if TYPE_CHECKING:`` are left out (kept with
    ``typing``)."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        if not typing and isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def imports_of(module: str, *, typing: bool | None = None) -> tuple[set[str], set[str]]:
    """(mjledger modules, third-party top-level names) that ``module`` imports. In the pure
    core an import for type checking counts too: its layers have no cycle even there
    (``typing``: count them, or not, whatever the module)."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    internal: set[str] = set()
    external: set[str] = set()
    for node in _runtime_imports(tree, typing=_in_core(module) if typing is None else typing):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            assert node.level == 0, f"{module}: relative import"
            base = node.module or ""
            names = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names
            ]
        for name in names:
            if name.split(".")[0] == "mjledger":
                internal.add(name)
            else:
                external.add(name.split(".")[0])
    return internal, external


GRAPH = {m: imports_of(m)[0] for m in MODULES}
TYPING_GRAPH = {m: imports_of(m, typing=True)[0] for m in MODULES}


def _find_cycle(graph: dict[str, set[str]], modules: list[str]) -> None:
    state: dict[str, int] = {}

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph.get(module, ())):
            if state.get(target) == 1:
                cycle = path[path.index(target) :] if target in path else path
                pytest.fail("import cycle: " + " -> ".join([*cycle, target]))
            if target in MODULES and not state.get(target):
                visit(target, [*path, target])
        state[module] = 2

    for module in modules:
        if not state.get(module):
            visit(module, [module])


def test_no_import_cycles() -> None:
    _find_cycle(GRAPH, sorted(MODULES))


def test_no_import_cycles_even_for_type_checking() -> None:
    """A module that imports another back for its annotations only is still tied to it (the
    two cannot be understood, or split, apart): no cycle anywhere in the package, imports
    behind ``TYPE_CHECKING`` counted (the facades only re-export, so they are left out)."""
    modules = set(MODULES) - FACADES
    _find_cycle({m: TYPING_GRAPH[m] & modules for m in modules}, sorted(modules))


def test_the_cycle_check_finds_a_cycle_behind_type_checking() -> None:
    """The walk above is not vacuous: a cycle closed only under ``TYPE_CHECKING`` fails it."""
    graph = {"mjledger.errors": {"mjledger._text"}, "mjledger._text": {"mjledger.errors"}}
    with pytest.raises(pytest.fail.Exception, match="import cycle"):
        _find_cycle(graph, sorted(graph))


def test_no_import_cycles_in_the_store_even_for_type_checking() -> None:
    """A store helper that imports the application back for its annotations is still tied to
    it: the store's modules import each other without a cycle behind ``TYPE_CHECKING`` too."""
    store = {m for m in MODULES if m.startswith("mjledger.store")}
    _find_cycle({m: TYPING_GRAPH[m] & store for m in store}, sorted(store))


@pytest.mark.parametrize("module", sorted(set(MODULES) - FACADES))
def test_each_layer_imports_only_layers_below(module: str) -> None:
    own = layer_of(module)
    for target in GRAPH[module]:
        if target in FACADES or target not in MODULES:
            continue
        assert layer_of(target) <= own, f"{module} (layer {own}) imports {target}"


@pytest.mark.parametrize(
    "module", sorted(m for m in set(MODULES) - FACADES if layer_of(m) < CORE_LAYERS)
)
def test_the_pure_core_imports_no_io_framework(module: str) -> None:
    _, external = imports_of(module)
    assert not external & FORBIDDEN_IN_CORE


def test_replaying_with_the_core_loads_no_io_framework() -> None:
    code = (
        "import sys\n"
        "from mjledger import replay\n"
        "from mjledger.rules import find_ruleset\n"
        "r = replay(open(sys.argv[1], encoding='utf-8').read())\n"
        "find_ruleset('hongkong')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in sys.argv[2].split(',')))\n"
    )
    log = Path(__file__).resolve().parents[2] / "examples" / "sichuan-match.jsonl"
    out = subprocess.run(
        [sys.executable, "-c", code, str(log), ",".join(sorted(FORBIDDEN_IN_CORE))],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "[]"


# Prints, as the process exits, the modules it loaded among those its first argument names.
_REPORT_LOADED = (
    "import atexit, sys\n"
    "wanted = tuple(sys.argv[1].split(','))\n"
    "loaded = lambda: sorted(m for m in sys.modules if m.startswith(wanted))\n"
    "atexit.register(lambda: print(loaded(), file=sys.stderr))\n"
)


def _loaded_running(command: str, args: list[str], prefixes: tuple[str, ...]) -> list[str]:
    """The modules among ``prefixes`` that a process running ``command`` (Python source that
    reads the command line from ``sys.argv[2:]``) loads, its output discarded."""
    out = subprocess.run(
        [sys.executable, "-c", _REPORT_LOADED + command, ",".join(prefixes), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    return ast.literal_eval(out.stderr.strip().splitlines()[-1])


def _loaded_by(args: list[str], prefixes: tuple[str, ...]) -> list[str]:
    """The modules among ``prefixes`` that ``mjledger ARGS`` loads (output discarded)."""
    return _loaded_running("from mjledger.cli import main\nmain(sys.argv[2:])\n", args, prefixes)


def test_help_loads_no_library_framework_or_rule_set() -> None:
    """``mjledger --help`` lists the commands: it needs click and the commands' options only
    (each command imports what it uses when it runs)."""
    heavy = ("mjledger.store", "mjledger.fold", "mjledger.log", "mjledger.rules.registry")
    frameworks = ("eventsourcing", "cattrs", "attr", "rich", "msgspec", "babel", "litestar")
    assert _loaded_by(["--help"], (*heavy, *frameworks, "importlib.metadata")) == []


def test_help_imports_no_commands_module() -> None:
    """``mjledger --help`` lists the commands from their table (cli/commands.py) and imports
    none of the modules that define them: the group, its exit statuses and what they use."""
    assert _loaded_by(["--help"], ("mjledger",)) == [
        "mjledger",
        "mjledger._command_table",
        "mjledger._gc",
        "mjledger._replay_json",
        "mjledger._spool",
        "mjledger._streams",
        "mjledger._text",
        "mjledger.cli",
        "mjledger.cli.commands",
        "mjledger.cli.exits",
        "mjledger.cli.main",
        "mjledger.cli.shell",
        "mjledger.errors",
    ]


@pytest.mark.parametrize("example", ["sichuan-match.jsonl", "hongkong-match.jsonl"])
def test_replay_json_loads_neither_the_store_nor_rich_nor_plugins(example: str) -> None:
    """``replay --json`` of a built-in rule set's log (house rules on its first line): no
    store, no eventsourcing, no rich, no cattrs (the fast decoder reads house rules too, and
    the output is written without a converter), no command module but its own, no temporary
    file for a short output, and no scan of the installed packages for plugins' entry
    points."""
    log = Path(__file__).resolve().parents[2] / "examples" / example
    unwanted = (
        *("mjledger.store", "mjledger.explain", "mjledger.sim", "mjledger.cli.render"),
        *("mjledger.cli.disputes", "mjledger.cli.simulate", "mjledger.cli.standings"),
        *("mjledger.cli.evaluate", "mjledger.cli.audit", "mjledger.cli.serve"),
        *("eventsourcing", "rich", "litestar", "cattrs", "tempfile", "importlib.metadata"),
        *("mjledger.rules.legacy", "orjson"),  # no 0.1 plugin; a short output takes msgspec
        "json",  # every line read by the fast decoder: no strict decoder made
        "mjledger.rules.explained_values",  # nobody asks to explain: no note is made
    )
    assert _loaded_by(["replay", "--json", str(log)], unwanted) == []


def _loaded_by_console(args: list[str], prefixes: tuple[str, ...]) -> list[str]:
    """The modules among ``prefixes`` that the console script (``python -m mjledger ARGS``,
    as a user runs it) loads, output discarded."""
    command = (
        "sys.argv = ['mjledger', *sys.argv[2:]]\n"
        "from mjledger._console import run\n"
        "run('python -m mjledger')\n"
    )
    return _loaded_running(command, args, prefixes)


@pytest.mark.parametrize("ruleset", ["sichuan", "hongkong"])
@pytest.mark.parametrize("order", ["json first", "log first"])
def test_replay_json_of_the_console_script_loads_no_click(
    ruleset: str, order: str, tmp_path: Path
) -> None:
    """``mjledger replay --json LOG`` (either order) of a simulated log with tiles runs
    without click (mjledger/_replay_json), and the wait tables are found without OpenSSL's
    hashlib, tempfile or pathlib (tiles/prebuilt); nor any other command's module, the
    store or rich; nor the 0.1 plugins' wrapper (rules/legacy), nor orjson (a short output
    is indented by msgspec, fold/stream), nor json (no line needed the strict codec); of
    msgspec, its core alone (mjledger._lazy.core_alone): not its package's other modules,
    nor typing_extensions, which msgspec._utils would import."""
    from mjledger.sim.run import simulate

    (match,) = simulate(ruleset, hands=3, seed=1)
    log = tmp_path / "tiles.jsonl"
    log.write_text(match.text(), encoding="utf-8")
    assert '"tiles"' in match.text()
    args = (
        ["replay", "--json", str(log)] if order == "json first" else ["replay", str(log), "--json"]
    )
    unwanted = (
        *("click", "hashlib", "_hashlib", "tempfile", "pathlib", "importlib.metadata"),
        *("mjledger.cli", "mjledger.store", "mjledger.explain", "mjledger.sim"),
        *("eventsourcing", "rich", "cattrs", "mjledger.rules.legacy", "orjson", "json"),
        *("msgspec.json", "msgspec.inspect", "msgspec._json_schema", "msgspec.structs"),
        *("msgspec.msgpack", "msgspec.toml", "msgspec.yaml", "typing_extensions", "textwrap"),
        "mjledger.fold.replay",  # the whole-log replay: its hands' output is fold.output's
        "mjledger.rules.explained_values",  # nobody asks to explain: no note is made
    )
    loaded = _loaded_by_console(args, (*unwanted, "mjledger.tiles.prebuilt", "msgspec._core"))
    # the tables read, msgspec's core, and nothing unwanted
    assert loaded == ["mjledger.tiles.prebuilt", "msgspec._core"]


def test_the_console_script_takes_anything_else_to_click() -> None:
    """The guard of the test above can fail: any other command line (here ``replay`` of
    text) still goes through click."""
    log = str(Path(__file__).resolve().parents[2] / "examples" / "hongkong-match.jsonl")
    assert "click" in _loaded_by_console(["replay", log], ("click",))


# The patterns only a problem's message (or another command) matches with, compiled when first
# used (mjledger._text.compiled_when_used).
PROBLEMS_PATTERNS = (
    "mjledger._text:_CONTROL",
    "mjledger._checks:_TILES",
    "mjledger._checks:_NOT_IN_ID",
    "mjledger.tiles.notation:_GROUP",
    "mjledger.log.jsontext:_KEY",
    "mjledger.log.jsontext:_STRING",
    "mjledger.log.jsontext:_BRACKET",
)


def _compiled_by_console(args: list[str]) -> list[str]:
    """Which of :data:`PROBLEMS_PATTERNS` ``python -m mjledger ARGS`` compiled (found in
    ``re``'s cache of compiled patterns, which ``re.compile`` fills)."""
    code = (
        "import atexit, importlib, re, sys\n"
        "names = sys.argv[1].split(',')\n"
        "def compiled():\n"
        "    for name in names:\n"
        "        module, _, pattern = name.partition(':')\n"
        "        when_used = getattr(importlib.import_module(module), pattern)\n"
        "        source = when_used.__wrapped__.__closure__[0].cell_contents\n"
        "        kept = (*re._cache, *getattr(re, '_cache2', ()))  # what re.compile made\n"
        "        if any(key[1] == source for key in kept):\n"
        "            yield name\n"
        "atexit.register(lambda: print(list(compiled()), file=sys.stderr))\n"
        "sys.argv = ['mjledger', *sys.argv[2:]]\n"
        "from mjledger._console import run\n"
        "run('python -m mjledger')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, ",".join(PROBLEMS_PATTERNS), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    return ast.literal_eval(out.stderr.strip().splitlines()[-1])


def test_replay_json_compiles_no_pattern_of_a_problem(tmp_path: Path) -> None:
    """``replay --json`` of a good tile log compiles none of the patterns only a problem's
    message needs; a log with a bad id (its message names the character) compiles the id's."""
    from mjledger.sim.run import simulate

    (match,) = simulate("hongkong", hands=2, seed=1)
    log = tmp_path / "tiles.jsonl"
    log.write_text(match.text(), encoding="utf-8")
    assert _compiled_by_console(["replay", "--json", str(log)]) == []
    bad = tmp_path / "bad.jsonl"
    bad.write_text(match.text().replace('"players": ["', '"players": ["\\u0007', 1))
    assert "mjledger._checks:_NOT_IN_ID" in _compiled_by_console(["replay", "--json", str(bad)])


def test_the_explanations_values_come_when_asked_for() -> None:
    """``mjledger.rules.explained`` offers the values a note is made of (declared in
    ``explained_values``, made when first asked for), and nothing else it has not got."""
    from mjledger.rules import explained, explained_values

    for name in ("Term", "Amounts", "Why", "Batch", "Due", "NotedDue", "Params"):
        assert getattr(explained, name) is getattr(explained_values, name)
    with pytest.raises(AttributeError):
        explained.Nothing  # noqa: B018 - the lookup is the test

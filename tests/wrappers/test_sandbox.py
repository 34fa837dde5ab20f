"""The sandbox: what a bot's box is made of (read from the plan), and adversarial bots that try to cheat in the
default mode and fail, while the match plays on with no fault for the innocent seats.

Where bubblewrap cannot run, the process tests are skipped locally, but in CI (``CI=true`` or
``MJREF_REQUIRE_SANDBOX=1``) they fail: the sandbox's guarantees cannot pass by skipping.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from processes import GONE_WITHIN

from referee.game.rules import make_ruleset
from referee.match import play_match
from tournaments.store import connect
from wrappers import sandbox
from wrappers.spec import BotSpec, SpecError, spec_from_mapping

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ROOT / "tests" / "bots" / "hostile" / "hostile.py"
REQUIRED = os.environ.get("CI", "").lower() in ("1", "true", "yes") or os.environ.get("MJREF_REQUIRE_SANDBOX") == "1"


def _require_bwrap() -> None:
    """bwrap works here (in CI it must)."""
    problem = sandbox.bwrap_problem()
    if problem is not None:
        if REQUIRED:
            pytest.fail(f"the sandbox is required here but {problem}")
        pytest.skip(problem)


@pytest.fixture
def boxed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default mode (auto) must box bots here."""
    monkeypatch.delenv(sandbox.MODE_ENV, raising=False)
    _require_bwrap()


def _hostile(attack: str, *args: str, **fields: object) -> BotSpec:
    return BotSpec(name=f"hostile-{attack}", cmd=(sys.executable, str(HOSTILE), attack, *args), **fields)


def _innocent(i: int) -> BotSpec:
    return BotSpec(name=f"innocent{i}", cmd=(sys.executable, "-m", "bots.drawdiscard", "--keep-alive"),
                   keep_alive=True)


def _play(bad: BotSpec, tmp: Path, hands: int = 1, log: Path | None = None) -> tuple[list, dict]:
    """The hostile bot in seat 1 against three process bots; its reports and the match's faults."""
    err = tmp / "stderr"
    result = play_match([bad, _innocent(2), _innocent(3), _innocent(4)], seed=424242,
                        rules=make_ruleset({"hands": hands, "move_timeout": 5}),
                        log_path=log or tmp / "logs" / "m.jsonl", stderr_dir=err)
    assert len(result.hands) == hands, "the match played on"
    assert [f for f in result.faults if f.position != 1] == [], "no fault for the innocent seats"
    text = "".join(p.read_text(errors="replace") for p in err.glob("seat1-*.stderr"))
    reports = [json.loads(line[8:]) for line in text.splitlines() if line.startswith("HOSTILE ")]
    return result.faults, reports[0] if reports else {}


# ---------------------------------------------------------------------------------------------------- the plan
def test_the_plan_is_data_a_test_can_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECRET_TOKEN", "x")
    spec = BotSpec(name="b", cmd=(sys.executable, str(HOSTILE), "none"), env={"MINE": "1"}, memory_mb=300,
                   max_procs=9, cpu_seconds=7)
    none = sandbox.plan(spec, tmp_path, mode="none")
    assert none.mode == "none" and none.argv[0].endswith(("choom", "prlimit"))
    assert "--as=314572800:314572800" in none.argv and "--cpu=7:8" in none.argv and "--core=0:0" in none.argv
    assert "--pdeathsig" in none.argv, "the bot dies with the referee"
    assert set(none.env) <= {"PATH", "LANG", "HOME", "TMPDIR"} and none.env["HOME"] == str(tmp_path)
    own = none.argv.index("MINE=1")  # the bot's own env, set by env(1) after the launchers, right before the bot
    assert none.argv[own - 1].endswith("env") and none.argv[own + 1:] == (sys.executable, str(HOSTILE), "none")
    assert none.cwd == str(tmp_path), "no cwd: the seat's scratch folder"
    if sandbox.bwrap_problem() is None:
        box = sandbox.plan(spec, tmp_path, mode="bwrap")
        argv = list(box.argv)
        for flag in ("--unshare-pid", "--unshare-net", "--unshare-ipc", "--die-with-parent", "--new-session"):
            assert flag in argv
        assert "--nproc=9:9" in argv
        assert (str(HOSTILE.parent), False) in box.binds, "the folder of the script its command names, read-only"
        assert argv[argv.index("--tmpfs") + 1] == "/tmp", "a private /tmp"
        net = sandbox.plan(spec.model_copy(update={"network": True, "writable": True}), tmp_path, mode="bwrap")
        assert "--unshare-net" not in net.argv
        assert (str(HOSTILE.parent), True) in net.binds


@pytest.mark.parametrize("mode", ["none", "bwrap"])
def test_the_oom_killer_takes_a_bot_and_its_children_first(mode: str, tmp_path: Path) -> None:
    """``memory_mb`` bounds each of a bot's processes, not their sum: when the machine runs out of memory, the
    kernel's OOM killer must pick a bot's process (its own, or one it started) before the referee."""
    if mode == "bwrap":
        _require_bwrap()
    child = "import subprocess; subprocess.run(['cat', '/proc/self/oom_score_adj'])"
    code = f"print(open('/proc/self/oom_score_adj').read().strip(), flush=True); {child}"
    launch = sandbox.plan(BotSpec(name="b", cmd=(sys.executable, "-c", code)), tmp_path, mode=mode)
    out = subprocess.run(launch.argv, env=launch.env, cwd=launch.cwd, capture_output=True, text=True, timeout=30)
    assert out.stdout.split() == [str(sandbox.OOM_SCORE_ADJ)] * 2, (launch.unprotected, out.stderr)
    assert open("/proc/self/oom_score_adj").read().strip() != str(sandbox.OOM_SCORE_ADJ), "the referee keeps its own"


def test_keep_alive_cpu_limit_covers_the_match(tmp_path: Path) -> None:
    spec = BotSpec(name="b", cmd=(sys.executable, str(HOSTILE)), keep_alive=True, cpu_seconds=5)
    assert "--cpu=80:81" in sandbox.plan(spec, tmp_path, mode="none", hands=16).argv


def test_a_death_by_a_limit_names_the_limit(tmp_path: Path) -> None:
    launch = sandbox.plan(BotSpec(name="b", cmd=(sys.executable, str(HOSTILE)), memory_mb=1024), tmp_path,
                          mode="none")
    assert launch.describe_exit(-int(signal.SIGXCPU)) == (f"killed by SIGXCPU: CPU limit {sandbox.CPU_SECONDS} s per "
                                                          "hand; raise cpu_seconds in the bot's TOML file")
    assert launch.describe_exit(1, b"Traceback...\nMemoryError\n") == (
        "exited with status 1: memory limit 1024 MB of address space (an allocation failed); raise memory_mb in the "
        "bot's TOML file")
    jvm = b"Error occurred during initialization of VM\nCould not allocate compressed class space: 1073741824 bytes"
    assert launch.describe_exit(1, jvm).endswith(
        "a JVM reserves more than it uses: start it with -XX:CompressedClassSpaceSize=64m (and -Xmx), or raise "
        "memory_mb in the bot's TOML file")
    assert launch.describe_exit(3) == "exited with status 3"


def test_mode_precedence_and_bad_modes(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = BotSpec(name="b", cmd=("x",), sandbox="none")
    monkeypatch.delenv(sandbox.MODE_ENV, raising=False)
    assert sandbox.requested_mode(spec) == "none"
    monkeypatch.setenv(sandbox.MODE_ENV, "bwrap")
    assert sandbox.requested_mode(spec) == "bwrap", "--sandbox (MJREF_SANDBOX) wins over the bot's own"
    monkeypatch.setenv(sandbox.MODE_ENV, "maybe")
    with pytest.raises(sandbox.BotError, match="MJREF_SANDBOX: unknown sandbox mode 'maybe'"):
        sandbox.requested_mode(spec)


@pytest.mark.parametrize(("field", "value", "message"), [
    ("sandbox", "maybe", "bot.toml: sandbox: Input should be 'auto', 'bwrap' or 'none'"),
    ("memory_mb", 1, "bot.toml: memory_mb: Input should be greater than or equal to 16"),
    ("max_procs", 0, "bot.toml: max_procs: Input should be greater than or equal to 1"),
    ("network", "yes please", "bot.toml: network: Input should be a valid boolean, not 'yes please'"),
    ("network", "true", "bot.toml: network: Input should be a valid boolean, not 'true'"),  # a string, not a bool
])
def test_bad_sandbox_fields_are_one_line_errors(field: str, value: object, message: str, tmp_path: Path) -> None:
    with pytest.raises(SpecError) as err:
        spec_from_mapping({"name": "b", "cmd": ["./bot"], field: value}, "bot.toml", tmp_path)
    assert str(err.value) == message


def test_a_toml_bot_runs_in_its_scratch_folder_not_the_tomls(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("")
    spec = spec_from_mapping({"name": "b", "cmd": ["python3", "bot.py"]}, "t.toml", tmp_path)
    assert spec.cwd is None and spec.cmd == ("python3", str(tmp_path.resolve() / "bot.py"))


def test_logs_and_stores_are_private(tmp_path: Path) -> None:
    play_match([BotSpec(name="g", builtin="greedy")] * 4, seed=1, rules=make_ruleset({"hands": 1}),
               log_path=tmp_path / "new" / "m.jsonl")
    assert (tmp_path / "new").stat().st_mode & 0o777 == 0o700
    assert (tmp_path / "new" / "m.jsonl").stat().st_mode & 0o777 == 0o600
    connect(tmp_path / "s" / "store.db").close()
    assert (tmp_path / "s" / "store.db").stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "s").stat().st_mode & 0o777 == 0o700


def test_the_folders_commands_make_for_logs_and_stderr_are_private(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The commands check their output places first, and that check made the folders 0755 (the files in them were
    0600, so a bot could list them): ``mjref match``'s default log folder, ``--stderr-dir``, a tournament's
    stderr folders."""
    from referee.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["match", "greedy", "random", "--hands", "1", "--stderr-dir", "err", "--quiet"]) == 0
    for folder in (tmp_path / "mjref-logs", tmp_path / "err"):
        assert folder.stat().st_mode & 0o777 == 0o700, folder
    (tmp_path / "t.toml").write_text('name = "t"\nseeds = 1\nhands = 1\n[[bots]]\nname = "a"\nbuiltin = "greedy"\n'
                                     '[[bots]]\nname = "b"\ncmd = ["python3", "-m", "bots.random"]\n')
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).resolve().parents[2]))
    assert main(["tournament", "t.toml", "--quiet"]) == 0
    made = [p for p in tmp_path.rglob("*") if p.is_dir() and p.name not in ("err", "mjref-logs")]
    assert made and all(p.stat().st_mode & 0o777 == 0o700 for p in made), [(p, oct(p.stat().st_mode)) for p in made]


# ---------------------------------------------------------------------------------------------------- attacks
def test_a_bot_cannot_read_another_seats_stdin(boxed: None, tmp_path: Path) -> None:
    faults, found = _play(_hostile("spy"), tmp_path)
    assert found["attack"] == "spy"
    assert not any("/mo" in o["read"] or "/initCard" in o["read"] for o in found["opened"]), found
    assert len(found["visible"]) <= 2, f"only its own box's processes are visible: {found}"
    assert not faults


def test_a_bot_cannot_write_into_another_seats_stdout(boxed: None, tmp_path: Path) -> None:
    _, found = _play(_hostile("poison"), tmp_path, hands=2)
    assert found["attack"] == "poison"  # _play checked: no unasked fault for the innocent seats


def test_a_bot_cannot_find_the_log_the_store_or_the_seed(boxed: None, tmp_path: Path) -> None:
    """The bot's own folder holds the logs and the store (as a tournament folder would)."""
    folder = tmp_path / "folder"
    folder.mkdir()
    folder.chmod(0o755)
    connect(folder / "store.db").close()
    log = folder / "mjref-logs" / "m.jsonl"
    faults, found = _play(_hostile("secrets", cwd=str(folder)), tmp_path, log=log)
    assert found["attack"] == "secrets" and found["cwd"] == str(folder)
    assert "424242" not in found["seeds"], found
    assert not [p for p in found["read"] if "m.jsonl" in p or "store.db" in p or ".stderr" in p], found
    assert not faults


def test_the_referees_command_line_gives_no_seed_away(boxed: None, tmp_path: Path) -> None:
    """A real ``mjref match --seed``: the bot looks at /proc/<ppid>/cmdline, its fds, every process."""
    env = {k: v for k, v in os.environ.items() if k != sandbox.MODE_ENV}
    cmd = [sys.executable, "-m", "referee.cli", "match", f"{sys.executable} {HOSTILE} secrets", "drawdiscard",
           "drawdiscard", "drawdiscard", "--seed", "987654321", "--hands", "1", "--json",
           "--stderr-dir", str(tmp_path / "err")]
    done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    text = "".join(p.read_text() for p in (tmp_path / "err").glob("seat1-*"))
    found = json.loads(next(line[8:] for line in text.splitlines() if line.startswith("HOSTILE ")))
    assert "987654321" not in json.dumps(found), found
    assert not json.loads(done.stdout)["faults"]


def test_a_bot_cannot_reach_the_network(boxed: None, tmp_path: Path) -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.settimeout(0.5)
        port = server.getsockname()[1]
        _, found = _play(_hostile("connect", str(port)), tmp_path)
        with pytest.raises(TimeoutError):
            server.accept()
    assert found == {"attack": "connect", "connected": False, "error": found["error"]}


def test_allocating_8_gb_is_a_fault_that_names_the_memory_limit(boxed: None, tmp_path: Path) -> None:
    faults, found = _play(_hostile("allocate", memory_mb=512), tmp_path)
    assert found == {}, "it never got the memory"
    assert faults and all(f.position == 1 and f.kind == "crash" for f in faults)
    assert "memory limit 512 MB" in faults[0].detail, faults[0]


def test_a_fork_bomb_is_bounded_by_max_procs(boxed: None, tmp_path: Path) -> None:
    # Bounded twice: the bot itself stops at 64 children, and max_procs should stop it well before.
    faults, found = _play(_hostile("forkbomb", "64", max_procs=8), tmp_path)
    assert found["attack"] == "forkbomb"
    assert found["children"] < 8 and found["error"], found


def _live(marker: str) -> list[int]:
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                if marker.encode() in Path(f"/proc/{d}/cmdline").read_bytes():
                    out.append(int(d))
            except OSError:
                pass
    return out


def test_a_setsid_daemon_dies_with_its_bot(boxed: None, tmp_path: Path) -> None:
    marker = f"mjref-daemon-{uuid.uuid4().hex}"
    _, found = _play(_hostile("daemon", marker), tmp_path)
    assert found == {"attack": "daemon", "started": True}
    deadline = time.monotonic() + GONE_WITHIN  # a margin load cannot eat: done when gone
    while _live(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _live(marker), "the daemon outlived its bot"


@pytest.mark.slow
def test_sigkill_to_the_referee_leaves_no_bot_behind(boxed: None, tmp_path: Path) -> None:
    marker = f"mjref-sleeper-{uuid.uuid4().hex}"
    bot = f"{sys.executable} {HOSTILE} sleep {marker}"
    env = {k: v for k, v in os.environ.items() if k != sandbox.MODE_ENV}
    env["TMPDIR"] = str(tmp_path)  # the seats' scratch folders, which a referee killed by SIGKILL cannot remove
    proc = subprocess.Popen([sys.executable, "-m", "referee.cli", "match", bot, bot, bot, bot, "--timeout", "60",
                             "--log", "none", "--quiet"], cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not _live(marker) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _live(marker), "the bots started"
        time.sleep(1)
        proc.kill()
        proc.wait()
        deadline = time.monotonic() + GONE_WITHIN  # a margin load cannot eat: done when gone
        while _live(marker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _live(marker), "a bot outlived the referee killed by SIGKILL"
    finally:
        proc.kill()
        for pid in _live(marker):
            os.kill(pid, signal.SIGKILL)


def test_framework_and_builtin_bots_play_in_the_box_without_a_fault(boxed: None, tmp_path: Path) -> None:
    specs = [BotSpec(name="greedy", cmd=(sys.executable, "-m", "bots.greedy")),
             BotSpec(name="random", cmd=(sys.executable, "-m", "bots.random")),
             BotSpec(name="badbot-good", cmd=(sys.executable, str(ROOT / "tests" / "bots" / "badbot.py"), "good")),
             BotSpec(name="checkbot", cmd=(sys.executable, str(ROOT / "tests" / "bots" / "checkbots" / "checkbot.py")))]
    result = play_match(specs, seed=9, rules=make_ruleset({"hands": 2}), log_path=tmp_path / "m.jsonl")
    assert not result.faults, result.faults


def test_a_keep_alive_bot_that_exits_at_exit_is_told_why(tmp_path: Path) -> None:
    spec = BotSpec(name="per-hand", cmd=(sys.executable, "-m", "bots.drawdiscard"), keep_alive=True)
    result = play_match([spec] + [BotSpec(name="g", builtin="greedy")] * 3, seed=2,
                        rules=make_ruleset({"hands": 4}), log_path=tmp_path / "m.jsonl")
    assert result.faults, "a keep_alive bot that exits at /exit faults"
    assert all("keep_alive" in f.detail for f in result.faults), result.faults


def test_a_bots_stderr_in_a_fault_detail_is_escaped(tmp_path: Path) -> None:
    """A bot can print what looks like bubblewrap's complaint and exit 1: its words are quoted, escaped and cut."""
    launch = sandbox.plan(BotSpec(name="b", cmd=(sys.executable, str(HOSTILE))), tmp_path, mode="none")
    boxed = sandbox.Launch(launch.argv, launch.env, launch.cwd, launch.inner_cwd, "bwrap", launch.limits,
                           launch.hands, None, (), (), ())
    detail = boxed.describe_exit(1, b"bwrap: \x1b]0;title\x07 " + b"x" * 500 + b"\n")
    assert "\x1b" not in detail and "\\x1b]0;title\\x07" in detail and len(detail) < 300, detail


@pytest.mark.parametrize("mode", ["none", "bwrap"])
def test_a_bots_own_env_never_reaches_the_launchers(mode: str, monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path) -> None:
    """A bot file's ``env`` is set right before the bot's program, inside the box and under the limits: given to
    the launch, ``LD_PRELOAD`` ran code in bwrap as root, outside the box, and could read the live log.  Seen
    here through the loader's own trace (``LD_DEBUG``), which every program that gets the variable writes to
    stderr: the bot's programs write it, bwrap, prlimit and setpriv do not."""
    if mode == "bwrap":
        _require_bwrap()
    monkeypatch.setenv(sandbox.MODE_ENV, mode)
    bot = BotSpec(name="traced", cmd=(sys.executable, "-m", "bots.drawdiscard"), env={"LD_DEBUG": "files"})
    err = tmp_path / "stderr"
    others = [BotSpec(name=f"greedy{i}", builtin="greedy") for i in (2, 3, 4)]
    result = play_match([bot, *others], seed=5, rules=make_ruleset({"hands": 1}),
                        stderr_dir=err)
    assert result.faults == [] and len(result.hands) == 1
    trace = "".join(p.read_text(errors="replace") for p in err.glob("seat1-*.stderr"))
    assert "needed by" in trace, "the bot's programs got the variable"
    for launcher in ("bwrap", "prlimit", "setpriv"):
        assert f"/{launcher}" not in trace, f"{launcher} got the bot's env"

"""``mjref regress --candidate BOT --baseline BOT``: is the candidate weaker?  pass, identical, regression or
inconclusive; ``mjref regress --plan --margin M``: how many hands that takes, without playing.

A thin face over :mod:`tournaments.regress` (duplicate groups, the store, resuming, identical play, faults) and
:mod:`tournaments.sprt` (the test); see docs/regression.md.  Exit status: 0 pass or identical, 1 regression (the
LLR, or faults), 3 inconclusive, 2 usage errors (one line on stderr), 128 + the signal when stopped (130 Ctrl-C, 143
SIGTERM, 129 SIGHUP: the store keeps every finished match; run the same command again to resume).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from referee.commands import add_play_options, add_rules_options, add_timeout_option, fail, make_console
from referee.commands._runs import LongRun, RunStopped, bad_input_exits_2, check_dask, dask_address, open_dask
from referee.markdown import md_code
from referee.match import MatchError, resolve_bots
from referee.numbers import count, float_arg, int_arg
from referee.rulesets import playable_rules, with_match_options
from referee.userfiles import check_output_dir, check_output_file
from tournaments.config import check_concurrency
from tournaments.regress import (
    DEFAULT_HANDS,
    DEFAULT_IDENTICAL_GROUPS,
    DEFAULT_MAX_HANDS,
    DEFAULT_STORE,
    DEFAULT_TAIL_LOSS,
    DESIGNS,
    RegressError,
    RegressResult,
    RegressSettings,
    RegressState,
    check_plan_sd,
    load_differences,
    plan_regress,
    plan_table,
    run_regress,
)
from tournaments.sprt import DEFAULT_ALPHA, DEFAULT_BETA, DEFAULT_MARGIN, SprtSettings
from wrappers.spec import with_command_line_timeout


def register(sub: Any, name: str, summary: str) -> None:
    p = sub.add_parser(
        name,
        help=summary,
        description="Play the candidate against the baseline on duplicate deals until a sequential test (SPRT) "
        "decides: pass (not weaker by --margin points per hand), regression (weaker by --margin or more, or "
        "faulting more than the baseline), identical (the same answers as the baseline on every deal) or "
        "inconclusive (--max-hands ran out). Exit status 0 pass or identical, 1 regression, 3 inconclusive, "
        "2 usage error. BOT is anything `mjref match` accepts. Results are kept in --store; the same command "
        "resumes. --plan prints the hands a verdict takes, without playing.",
    )
    p.add_argument("--candidate", metavar="BOT", help="the bot under test (e.g. your new build); required but "
                   "with --plan")
    p.add_argument("--baseline", metavar="BOT", help="the bot to compare with (e.g. the last release); required "
                   "but with --plan")
    p.add_argument("--field", default=None, metavar="BOT",
                   help="1v3 only: the three opponents (default: copies of the baseline)")
    p.add_argument("--design", choices=DESIGNS, default="1v3",
                   help="1v3 (default): the candidate in each seat against three opponents, the baseline in its "
                   "place on the same walls; 2v2: C B C B then B C B C on the same walls")
    p.add_argument("--margin", type=float_arg, default=DEFAULT_MARGIN,
                   help=f"points per hand: H0 'weaker by MARGIN or more' against H1 'not weaker' "
                   f"(default {DEFAULT_MARGIN:g})")
    p.add_argument("--alpha", type=float_arg, default=DEFAULT_ALPHA,
                   help=f"chance of passing a regression of MARGIN (default {DEFAULT_ALPHA:g})")
    p.add_argument("--beta", type=float_arg, default=DEFAULT_BETA,
                   help=f"chance of failing a bot that is not weaker (default {DEFAULT_BETA:g})")
    p.add_argument("--identical-groups", type=int_arg, default=DEFAULT_IDENTICAL_GROUPS, metavar="N",
                   help="stop with 'identical' (exit 0) once the candidate answered every question as the baseline "
                   f"did on the first N groups; 0: never (default {DEFAULT_IDENTICAL_GROUPS})")
    p.add_argument("--tail-loss", type=float_arg, default=DEFAULT_TAIL_LOSS, metavar="POINTS",
                   help="the largest loss and the largest gain of one group (points over the candidate's seat-hands "
                   "of a deal) that alpha and beta cover, whatever the distribution (bounded betting tests); 0: "
                   f"off, the normal approximation decides (default {DEFAULT_TAIL_LOSS:g})")
    p.add_argument("--plan", action="store_true",
                   help="play nothing: print the expected hands and the budget for 95%% of runs to end decided "
                   "at this --margin (simulated)")
    p.add_argument("--sd", type=float_arg, default=None, metavar="POINTS",
                   help="--plan: the SD of a group's difference (the 'sd' of an earlier run's JSON; default: the "
                   "one measured for greedy-like bots, scaled to --hands)")
    p.add_argument("--resample", type=Path, default=None, metavar="FILE",
                   help="--plan: resample real group differences instead of normal ones: a JSON object with "
                   "\"differences\" (an earlier run's --json, or bench/regress.py --save-groups)")
    p.add_argument("--max-hands", type=int_arg, default=DEFAULT_MAX_HANDS,
                   help=f"hand budget; no verdict by then is 'inconclusive' (default {DEFAULT_MAX_HANDS})")
    p.add_argument("--hands", type=int_arg, default=DEFAULT_HANDS, help=f"hands per match (default {DEFAULT_HANDS})")
    p.add_argument("--seeds-from", type=int_arg, default=1, metavar="N",
                   help="the first seed; group k plays seed N+k under the store's wall salt, so resuming replays "
                   "the same walls (default 1)")
    p.add_argument("--wall-salt", default=None, metavar="TEXT",
                   help="salt of the walls (default: a secret one per store, so nobody can derive the walls from "
                   "the seeds; give one to replay the same walls in another store)")
    p.add_argument("--concurrency", type=int_arg, default=None, help="matches at once (default: the cores)")
    p.add_argument("--dask", metavar="ADDRESS", default=None, type=dask_address,
                   help="play the matches on a Dask cluster: a scheduler address, or 'local' "
                   "(needs: pip install 'mjref[dask]')")
    p.add_argument("--store", type=Path, default=Path(DEFAULT_STORE),
                   help=f"the results store; the same command resumes from it (default {DEFAULT_STORE})")
    p.add_argument("--restart", action="store_true", help="discard the store's results and start again")
    p.add_argument("--logs", type=Path, default=None, metavar="DIR",
                   help="where the JSON-lines log (and the bots' stderr) of every match is kept, for replay after a "
                   "failed run (default: STORE-logs beside the store, e.g. mjref-regress-logs/; 'none' for no logs)")
    add_rules_options(p)
    add_timeout_option(p)
    p.add_argument("--markdown", type=Path, default=None, metavar="FILE",
                   help="append a Markdown summary to FILE (e.g. $GITHUB_STEP_SUMMARY)")
    p.add_argument("--quiet", action="store_true", help="no live line; only the verdict")
    p.add_argument("--json", action="store_true", help="print one JSON object with the verdict, nothing else")
    add_play_options(p)
    p.set_defaults(func=run)


def settings_from_args(args: argparse.Namespace) -> RegressSettings:
    """The run's settings from the command line; raises the library's errors (all ``ValueError``)."""
    rules = with_match_options(playable_rules(args.rules, args.options, "regress"), hands=args.hands)
    specs = {}
    for role in ("candidate", "baseline", "field"):
        text = getattr(args, role)
        if text is None and role != "field" and getattr(args, "plan", False):
            text = "greedy"  # --plan plays nothing: the bots only make the settings whole
        if text is None:
            if role != "field":
                raise RegressError(f"--{role} is required (unless --plan)")
            continue
        try:
            specs[role] = resolve_bots([text])[0]
        except MatchError as exc:
            raise RegressError(f"--{role}: {exc}") from None
        specs[role] = with_command_line_timeout(specs[role], args.timeout)  # kept in the store's identity
    check_concurrency(args.concurrency)
    sprt = SprtSettings(margin=args.margin, alpha=args.alpha, beta=args.beta)
    return RegressSettings(specs["candidate"], specs["baseline"], specs.get("field"), args.design, rules, sprt,
                           args.max_hands, args.seeds_from, args.wall_salt, args.identical_groups, args.tail_loss)


def _signed(x: float | None, nd: int = 1) -> str:
    return "-" if x is None else f"{x:+.{nd}f}"


def status_line(state: RegressState) -> Text:
    """The live line: hands, mean difference with its 95 % interval, LLR against its bounds."""
    sp = state.sprt
    a, b = state.settings.sprt.bounds
    ci = sp.ci95()
    ci_text = f" [{_signed(ci[0])}, {_signed(ci[1])}]" if ci else ""
    t = Text()
    t.append(f"hands {state.hands}", style="bold")
    t.append(f"  groups {state.groups}/{state.settings.max_groups}")
    t.append(f"  diff {_signed(sp.mean if sp.n else None)}{ci_text} pts/hand")
    style = "green" if sp.llr > 0 else ("red" if sp.llr < 0 else "")
    t.append("  LLR ")
    t.append(f"{sp.llr:+.2f}", style=style)
    t.append(f" ({a:.2f}, {b:.2f})")
    if state.settings.tail_loss > 0:
        t.append(f"  betting pass {sp.evidence:+.2f}/{state.settings.sprt.evidence_bound:.2f}, regression "
                 f"{sp.regression_evidence:+.2f}/{state.settings.sprt.regression_bound:.2f}")
    if state.groups and state.differed_at is None:
        t.append(f"  identical play so far ({state.identical}/{state.settings.identical_groups} groups)",
                 style="yellow")
    elif sp.zero_variance:
        t.append("  zero variance", style="yellow")
    if sp.held == "burn-in":
        t.append(f"  past a bound, held by the burn-in ({sp.n}/{state.settings.sprt.min_groups} groups)",
                 style="cyan")
    elif sp.held == "tail":
        t.append(f"  LLR past the {'upper' if sp.llr > 0 else 'lower'} bound, held by the betting test", style="cyan")
    cf, bf = state.faults.get("candidate", 0), state.faults.get("baseline", 0)
    if cf or bf:
        t.append(f"  faults {cf} vs {bf}", style="red" if cf > bf else "")
    return t


VERDICT_STYLE = {"pass": "bold green", "identical": "bold green", "regression": "bold red",
                 "inconclusive": "bold yellow"}
VERDICT_WORDS = {
    "pass": "PASS: not weaker than the baseline",
    "identical": "IDENTICAL: the candidate plays exactly like the baseline",
    "regression": "REGRESSION: weaker than the baseline",
    "inconclusive": "INCONCLUSIVE: not sure yet",
}


def _verdict_words(r: RegressResult) -> str:
    if r.reason == "faults":
        return "REGRESSION: the candidate faults more than the baseline"
    return VERDICT_WORDS[r.verdict]


def to_markdown(r: RegressResult, store: Path) -> str:
    """A summary for a CI job page (GitHub's ``$GITHUB_STEP_SUMMARY`` renders it)."""
    mark = {"pass": "✅", "identical": "✅", "regression": "❌", "inconclusive": "⚠️"}[r.verdict]
    ci = f" (95% interval {_signed(r.ci95[0])} to {_signed(r.ci95[1])})" if r.ci95 else ""
    design = "1v3: the candidate in every seat of each deal, the baseline in its place" if r.design == "1v3" \
        else "2v2: C B C B, then B C B C on the same deals"
    rows = [
        ("verdict", f"**{r.verdict}** ({r.reason}): {r.detail}"),
        *(("note", n) for n in r.notes),
        ("candidate", md_code(r.candidate)),  # a command line: a backtick in it must not end the code span
        ("baseline", md_code(r.baseline)),
        *((("field", md_code(r.field)),) if r.field else ()),
        ("design", design),
        ("hands", f"{r.hands} ({r.groups} duplicate groups of {r.hands_per_match}-hand matches; "
                  + f"budget {r.max_hands})"),
        ("mean difference", f"{_signed(r.mean_diff)} points per hand{ci}"),
        ("LLR", f"{r.llr:+.2f} (bounds {r.bounds[0]:.2f}, {r.bounds[1]:.2f})"),
        *((("betting tests", f"evidence {r.evidence:+.2f}, a pass at {r.evidence_bound:.2f}; "
                             f"{r.regression_evidence or 0.0:+.2f}, a regression at {r.regression_evidence_bound:.2f} "
                             f"(alpha and beta hold for any groups within ±{r.tail_loss:g} points)"),)
          if r.evidence is not None else ()),
        ("test", f"H0: weaker by ≥ {r.margin:g} points per hand; H1: not weaker; "
                 + f"alpha {r.alpha:g}, beta {r.beta:g}"),
        ("faults", f"candidate {r.faults.get('candidate', 0)} in {r.fault_hands.get('candidate', 0)} seat-hands, "
                   f"baseline {r.faults.get('baseline', 0)} in {r.fault_hands.get('baseline', 0)}"),
        *((("field faults", f"at the candidate's tables {r.field_faults.get('candidate', 0)}, at the baseline's "
                            f"{r.field_faults.get('baseline', 0)} (reported, no verdict)"),)
          if r.field_faults else ()),
        ("identical play", f"{r.identical_groups} groups" + (f"; an answer differed in group {r.differed_at}"
                                                             if r.differed_at else "")),
        ("seeds", f"{r.seeds[0]}..{r.seeds[1]}" if r.seeds else "-"),
        ("store", md_code(str(store))),
    ]
    lines = [f"### {mark} mjref regress: {_verdict_words(r)}", "", "| | |", "|---|---|"]
    lines += ["| " + k + " | " + v.replace("|", "\\|") + " |" for k, v in rows]
    return "\n".join(lines) + "\n"


def print_plan(table: dict[str, Any], console: Console) -> None:
    """The ``--plan`` table: per true difference, how runs end within the budget and the hands they take."""
    tab = Table(title=f"mjref regress --plan: margin {table['margin']:g} points/hand, alpha {table['alpha']:g}, "
                f"beta {table['beta']:g}, group SD {table['group_sd']:g}"
                f"{' (real differences, resampled)' if table['groups'] == 'resampled' else ''}, "
                f"{table['hands_per_group']} hands per group, "
                f"budget {table['max_hands']} hands ({_runs(table)} simulated runs per row)")
    for col in ("true difference", "pass", "regression", "inconclusive", "expected hands", "hands for 95% decided"):
        tab.add_column(col, justify="left" if col == "true difference" else "right")
    cap = table["cap_hands"]
    for row in table["cases"]:
        p95 = row["hands_for_95pct_decided"]
        expected = f"more than {row['expected_hands']}" if row["expected_hands_more"] else str(row["expected_hands"])
        tab.add_row(f"{row['mean_diff']:+g} ({row['case']})", f"{100 * row['pass']:.1f}%",
                    f"{100 * row['regression']:.1f}%", f"{100 * row['inconclusive']:.1f}%",
                    expected, str(p95) if p95 is not None else f"more than {cap}")
    console.print(tab)
    need = table["budget_for_95pct_decided"]
    if need is not None:
        console.print(f"a budget of --max-hands {need} ends 95% of runs decided in every case above")
    if any(row["capped"] for row in table["cases"]):
        console.print(f"some simulated runs were still undecided at {cap} hands, where the plan stops a run: the "
                      "hands they take are only known to be more"
                      + (f"; they count as inconclusive above, though your budget of {table['max_hands']} hands may "
                         "decide some" if table["max_hands"] > cap else "")
                      + "; a larger --margin or a smaller spread takes fewer hands")


def _runs(table: dict[str, Any]) -> str:
    counts = sorted({row["runs"] for row in table["cases"]})
    return str(counts[0]) if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"


@bad_input_exits_2("regress")
def run(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    if args.resample is not None and not args.plan:
        raise RegressError("--resample is for --plan")
    check_plan_sd(args.sd)
    if args.plan:
        return _print_plan(args, settings)
    check_output_file(args.store, "--store", private=True)
    if args.markdown is not None:
        check_output_file(args.markdown, "--markdown")
    # Logs by default: a failed CI run must leave something to replay (--logs none: none)
    logs: Path | None = args.store.with_name(args.store.stem + "-logs") if args.logs is None else args.logs
    if logs is not None and str(logs).lower() == "none":
        logs = None
    if logs is not None:
        check_output_dir(logs, "--logs", private=True)
    if args.restart:
        check_dask(args.dask)
    p = plan_regress(settings, args.store, restart=args.restart, logs_dir=logs)
    executor = open_dask(args.dask, lambda d, address: d.open_dask_executor(
        address, specs=settings.roles().values(), namespace=d.namespace_of(settings.identity()),
        workers=args.concurrency))
    state = p.state
    session = LongRun("regress", json=args.json, quiet=args.quiet, render=lambda: status_line(state),
                      line=lambda: status_line(state), every=5)
    field = f" (field {settings.field.describe()})" if settings.has_field and settings.field else ""
    session.say(f"[bold]mjref regress[/bold]: candidate {escape(settings.candidate.describe())} vs baseline "
                f"{escape(settings.baseline.describe())}{escape(field)}, design {settings.design}, "
                f"{settings.rules.hands} hands per match; H0 weaker by ≥ {settings.sprt.margin:g} points/hand, "
                f"H1 not weaker; alpha {settings.sprt.alpha:g}, beta {settings.sprt.beta:g}; budget "
                f"{settings.max_hands} hands")
    if state.matches_resumed:
        session.say(f"resuming: {count(state.matches_resumed, 'match', 'matches')} already in "
                    f"{escape(str(args.store))} "
                    f"({state.groups} groups counted)")
    concurrency = args.concurrency or (executor.slots if executor is not None else None)
    try:
        result = session.play(lambda: run_regress(p, concurrency=concurrency, executor=executor,
                                                  on_group=lambda st, d: session.update(final=st.finished),
                                                  shutdown=session.shutdown),
                              executor=executor, recorded=lambda: f"{state.matches_played + state.matches_resumed} "
                              f"matches are recorded in {args.store}")
    except RunStopped as stop:
        return stop.status
    if args.markdown is not None:
        try:
            with open(args.markdown, "a", encoding="utf-8") as f:
                f.write(to_markdown(result, args.store))
        except OSError as exc:
            fail("regress", f"cannot write {args.markdown} ({exc.strerror})")
    if args.json:
        print(json.dumps(result.to_json()))
        return result.exit_status
    session.finish_line()
    _print_verdict(result, session.console)
    session.console.print(Text(f"  {count(result.matches_played, 'match', 'matches')} played in "
                               f"{session.elapsed:.1f} s; results in "
                               f"{args.store}"))
    return result.exit_status


def _print_plan(args: argparse.Namespace, settings: RegressSettings) -> int:
    """``--plan``: the hands a verdict takes at this margin, simulated; nothing is played."""
    if args.resample is not None and args.sd is not None:
        raise RegressError("--sd and --resample are two ways to say the spread: give one")
    diffs = load_differences(args.resample) if args.resample is not None else None
    table = plan_table(settings, args.sd, differences=diffs)
    if args.json:
        print(json.dumps(table))
    else:
        print_plan(table, make_console())
    return 0


def _print_verdict(result: RegressResult, console: Console) -> None:
    console.print(Text(_verdict_words(result), style=VERDICT_STYLE[result.verdict]))
    console.print(Text(f"  {result.detail}"))
    for note in result.notes:
        console.print(Text(f"  note: {note}", style="cyan"))
    ci = f" (95% interval {_signed(result.ci95[0])} to {_signed(result.ci95[1])})" if result.ci95 else ""
    console.print(f"  mean difference {_signed(result.mean_diff)} points per hand{ci} over {result.hands} hands "
                  f"({result.groups} groups); LLR {result.llr:+.2f} (bounds {result.bounds[0]:.2f}, "
                  f"{result.bounds[1]:.2f})"
                  + (f"; betting evidence {result.evidence:+.2f} (pass at {result.evidence_bound:.2f}), "
                     f"{result.regression_evidence or 0.0:+.2f} (regression at {result.regression_evidence_bound:.2f})"
                     if result.evidence is not None else ""))
    faults = result.faults
    if faults.get("candidate") or faults.get("baseline"):
        console.print(f"  [yellow]faults: candidate {faults.get('candidate', 0)}, baseline "
                      f"{faults.get('baseline', 0)} (a faulting bot's seat is played by its stand-in)[/yellow]")

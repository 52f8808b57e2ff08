"""The ``tandem`` command."""

import argparse
import pathlib
import sys
import time
import warnings

import numpy as np

_KAT = pathlib.Path(__file__).with_name("data") / "random123_kat_vectors.txt"


def kat_vectors(path=_KAT):
    """The ``philox4x32`` and ``threefry4x32`` lines of Random123's known-answer file.

    Yields ``(name, rounds, counter, key, expected)`` with lists of int words.
    """
    for line in pathlib.Path(path).read_text().splitlines():
        fields = line.split()
        if fields and fields[0] in ("philox4x32", "threefry4x32"):
            name, rounds, *hexwords = fields
            words = [int(h, 16) for h in hexwords]
            key_words = 2 if name == "philox4x32" else 4
            yield name, int(rounds), words[:4], words[4:4 + key_words], words[4 + key_words:]


def known_answers():
    """Check Random123's known-answer vectors on the compiled path: (passed, total)."""
    import tandem

    passed = total = 0
    for name, rounds, counter, key, expected in kat_vectors():
        got = getattr(tandem, name)(counter, key, rounds)
        passed += list(map(int, got)) == expected
        total += 1
    return passed, total


def _rate(fill, n, repeats=3):
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fill()
        best = min(best, time.perf_counter() - t0)
    return n / best / 1e6


def demo(out=sys.stdout):
    """A short tour on embedded defaults; returns 0 when every check passes."""
    import tandem
    from tandem import distributions, parametric

    say = lambda *a: print(*a, file=out)  # noqa: E731
    ok = True
    say("tandem demo: reproducible parallel random numbers\n")

    passed, total = known_answers()
    ok &= passed == total
    say(f"1. Random123 known-answer vectors (Philox4x32, Threefry4x32): {passed}/{total} passed")

    root = tandem.Tandem(123456)
    say(f"\n2. Streams of the tandem specification's Tandem8x32: root = {root!r}")
    say(f"   root.sub('propagation') = {root.sub('propagation')!r}")
    say(f"   root.split(7)          = {root.split(7)!r}")

    stream = root.sub("demo").at(96)
    n = 100_003
    say(f"\n3. Same values on every backend, cut and thread count ({n} f64 from bit 96):")
    whole, _ = stream.random(n)
    reference, _ = distributions.random(stream, n, backend="reference")
    head, rest = stream.random(40_001, threads=1)
    tail, _ = rest.random(n - 40_001, threads=2)
    addressed = tandem.random_at(stream, np.arange(n))
    checks = {
        "Numba CPU == NumPy reference": np.array_equal(whole, reference),
        "cut at 40001, 1 + 2 threads == whole": np.array_equal(np.concatenate([head, tail]), whole),
        "random_at(arange(n)) == fill": np.array_equal(addressed, whole),
    }
    for label, good in checks.items():
        ok &= good
        say(f"   {label}: {'yes' if good else 'NO'}")

    normals = stream.sub("normal")
    say("\n4. The specification's normals (f64 ziggurat, f32 Box-Muller), weighted choice "
        "(Appendix C) and gamma (tandem's rule on Tandem words), 2000 each:")

    def cut_equals_whole(draw):
        values, _ = draw(normals, 2000)
        first, middle = draw(normals, 1000)
        return values, np.array_equal(np.concatenate([first, draw(middle, 1000)[0]]), values)

    for dtype in (np.float64, np.float32):
        ours, good = cut_equals_whole(lambda s, n: s.normal(n, dtype=dtype))
        ok &= good
        say(f"   normal {np.dtype(dtype).name}: cut at 1000 == whole: {'yes' if good else 'NO'}; "
            f"mean {ours.mean():+.3f}, std {ours.std():.3f}")
    table = tandem.ChoiceTable([1, 2, 3, 4])
    picks, good = cut_equals_whole(lambda s, n: s.choice(table, n))
    ok &= good
    shares = np.bincount(picks, minlength=4) / 2000
    say(f"   choice with weights 1:2:3:4: shares {np.round(shares, 3).tolist()}, "
        f"cut at 1000 == whole: {'yes' if good else 'NO'}")
    gammas = tandem.Generator(normals).gamma(2.0, size=2000)
    good = np.array_equal(gammas, parametric.fill(normals, "gamma", 2.0, 1.0, size=2000,
                                                         backend="reference")[0])
    ok &= good
    say(f"   gamma(2): Numba == reference: {'yes' if good else 'NO'}; mean {gammas.mean():.3f}")

    ok &= _particle_filter(say)
    ok &= _particle_mcmc(say)
    ok &= _structure_learning(say)

    m = 1 << 23
    buf = np.empty(m)
    gen = np.random.Generator(np.random.SFC64(1))
    stream.random(out=buf, threads=1)
    ours = _rate(lambda: stream.random(out=buf, threads=1), m)
    theirs = _rate(lambda: gen.random(out=buf), m)
    say(f"\n8. One thread, uniform f64: tandem {ours:.0f} M/s, NumPy SFC64 {theirs:.0f} M/s "
        f"({ours / theirs:.2f}x). benchmarks/cpu.py measures the rest.")
    say("\nall checks passed" if ok else "\nSOME CHECKS FAILED")
    return 0 if ok else 1


def _particle_filter(say):
    """Section 5: the worked example of docs/smc.md against Kalman."""
    import tandem
    from tandem import smc

    model = smc.LinearGaussian(transition=0.9, process_sd=0.3, observation_sd=0.5)
    y = [0.1, 0.4, -0.2, 0.3, 0.0, 0.2]
    n = 65536
    result = smc.bootstrap_filter(tandem.Tandem(123456), model, y, n)
    exact = smc.kalman(model, y)
    say(f"\n5. Bootstrap particle filter, {n} particles, root Tandem(123456), "
        "x_t = 0.9 x_(t-1) + 0.3 e_t, y_t = x_t + 0.5 n_t:")
    say("   t   y      filter mean  Kalman mean  difference   ESS")
    for t in range(len(y)):
        say(f"   {t}  {y[t]:+.1f}   {result.means[t]:+.6f}    {exact.means[t]:+.6f}    "
            f"{result.means[t] - exact.means[t]:+.6f}   {result.ess[t]:.0f}")
    error = float(np.abs(result.means - exact.means).max())
    say(f"   log-likelihood: filter {result.log_likelihood:.5f}, Kalman "
        f"{exact.log_likelihood:.5f}; largest mean difference {error:.4f}")
    return error < 0.01


def _particle_mcmc(say):
    """Section 6: PMMH of the worked example's transition coefficient against
    quadrature on Kalman's exact likelihood."""
    import tandem
    from tandem import smc

    known = smc.LinearGaussian(transition=0.9, process_sd=0.3, observation_sd=0.5)
    e, n = tandem.Philox(2026).normal(100)[0].reshape(2, 50)  # 50 steps of the model
    x = np.zeros(50)
    for t in range(50):
        x[t] = e[0] if t == 0 else 0.9 * x[t - 1] + 0.3 * e[t]
    y = x + 0.5 * n
    family = smc.ModelFamily(smc.linear_gaussian(known),
                             lambda theta: np.hstack([theta, np.tile([0.3, 0.5, 0.0, 1.0],
                                                                     (len(theta), 1))]),
                             ("transition",))

    def prior(theta):  # uniform on (-1, 1)
        return np.where(np.abs(theta[:, 0]) < 1, 0.0, -np.inf)

    result = smc.pmmh(tandem.Philox(6), family, prior, y, 64, initial=[0.5],
                      proposal_sd=[0.1], chains=4, iterations=1500, progress=False)
    grid = np.linspace(-0.999, 0.999, 400)
    log_posterior = np.array([smc.kalman(smc.LinearGaussian(a, 0.3, 0.5), y).log_likelihood
                              for a in grid])
    weights = np.exp(log_posterior - log_posterior.max())
    exact = float((grid * weights).sum() / weights.sum())
    draws = result.samples[:, :, 0]
    se = max(draws.std() / np.sqrt(result.ess[0]), draws.mean(axis=1).std(ddof=1) / 2)
    say(f"\n6. Particle MCMC (tandem.smc.pmmh): the transition coefficient of the model "
        f"above from {len(y)} observations, 4 chains x 1500 iterations of 64-particle "
        f"filters:")
    say(f"   posterior mean {draws.mean():.4f} +- {se:.4f} (R-hat {result.rhat[0]:.3f}, "
        f"ESS {result.ess[0]:.0f}, acceptance {result.acceptance.mean():.2f}); "
        f"exact (Kalman, quadrature) {exact:.4f}")
    return abs(draws.mean() - exact) < 4.5 * se and result.rhat[0] < 1.1


def _bn_learn(args, out=sys.stdout, err=sys.stderr):
    """``tandem bn learn``: a report folder; exit status 2 on bad input."""
    import tandem
    from tandem import bn
    from tandem.bn import report

    say = lambda *a: print(*a, file=out)  # noqa: E731
    try:
        if (args.data is None) == (args.network is None):
            raise ValueError("give DATA.csv or --network, not both and not neither")
        folder = args.out or f"tandem-bn-{pathlib.Path(args.network or args.data).stem}"
        report.check_out(folder)  # before the run: a report that cannot be written fails now
        truth = None
        if args.network is not None:
            network = (bn.load_network(args.network) if args.network in bn.NETWORKS
                       else bn.read_bif(args.network))
            data = network.sample(args.samples,
                                  tandem.Tandem(args.seed).sub(report.PURPOSE_DATA))
            truth = network.adjacency()
            source = f"{args.samples} rows sampled from the network {args.network}"
        else:
            # A discrete score reads the columns as they are; float columns
            # then fail with a message rather than become hundreds of states.
            kind = "gaussian" if args.score == "bge" else None
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                data = bn.Dataset.from_csv(args.data, kind=kind, dropna=args.dropna,
                                           missing=_missing_tokens(args.missing))
            for warning in caught:
                print(f"tandem bn learn: warning: {warning.message}", file=err)
            source = str(args.data)
        say(f"tandem bn learn: {source}: {data.n_rows} rows, {data.n_vars} columns")
        learned = report.learn(data, score=args.score, ess=args.ess,
                               max_parents=args.max_parents, candidates=args.candidates,
                               chains=args.chains, iterations=args.iterations, seed=args.seed,
                               true_adjacency=truth, source=source, time_limit=args.time_limit,
                               expand=args.expand, replicas=args.replicas, moves=args.moves,
                               hottest=report.HOTTEST if args.hottest is None else args.hottest,
                               device=args.device,
                               log=lambda line: print(f"tandem bn learn: {line}", file=err))
        path = report.write_report(learned, folder)
    except (ValueError, TypeError, MemoryError, OSError, RuntimeError, ImportError) as error:
        budget = getattr(error, "budget", None)
        message = error if budget is None else budget.describe(_BN_OPTIONS)
        print(f"tandem bn learn: error: {message}", file=err)
        return 2
    summary = learned.summary()
    rhat = summary["rhat_order_score"]
    say(f"score table {learned.seconds['score_table']:.1f} s, "
        f"{args.chains} chains x {args.iterations} iterations "
        f"{learned.seconds['order_mcmc']:.1f} s; R-hat of the order score "
        f"{'n/a' if rhat is None else f'{rhat:.3f}'}")
    edges = summary["edges"]
    if edges["largest_rhat"] is not None and edges["smallest_ess"] is not None:
        say(f"edges: largest R-hat {edges['largest_rhat']:.3f} "
            f"({edges['largest_rhat_edge']}), smallest effective sample size "
            f"{edges['smallest_ess']:.0f} ({edges['smallest_ess_edge']})")
    if edges["advice"] is not None:
        print(f"tandem bn learn: warning: {edges['advice']}", file=err)
    if "against_true_graph" in summary:
        against = summary["against_true_graph"]
        say(f"against the true graph: edge AUROC {against['auroc_directed']:.3f} (directed), "
            f"{against['auroc_skeleton']:.3f} (skeleton); SHD of the best DAG "
            f"{against['shd_best_dag']}; CPDAG SHD of the graph of edges above "
            f"{report.GRAPH_THRESHOLD} {against['shd_cpdag_graph']}, of the "
            f"{'exact ' if summary['map_dag_exact'] else ''}MAP DAG "
            f"{against['shd_cpdag_map_dag']}, of the best order's DAG "
            f"{against['shd_cpdag_best_dag']}")
    say(f"report: {path}/ (edges.csv, run.json, graph and cpdag .dot and .graphml, "
        f"figures: {_figures_line(path)})")
    return 0


def _missing_tokens(text):
    """``--missing``'s tokens: the comma-separated cells, or the default set."""
    from tandem.bn.data import MISSING_TOKENS

    return MISSING_TOKENS if text is None else tuple(t.strip() for t in text.split(","))


def _figures_line(path):
    names = sorted(p.name for p in pathlib.Path(path).glob("*.png"))
    return ", ".join(names) if names else "none (matplotlib not installed)"


#: How a refused score table names the options of ``tandem bn learn`` (no option
#: raises the memory limit).
_BN_OPTIONS = {"max_parents": "--max-parents {}", "candidates": "--candidates {}",
               "time": "--time-limit"}


def _positive_float(text):
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text}")
    return value


def _positive_int(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def _moves(text):
    """``adjacent,relocate=2`` as ``{"adjacent": 1.0, "relocate": 2.0}``."""
    weights = {}
    for item in text.split(","):
        name, _, weight = item.strip().partition("=")
        try:
            weights[name] = float(weight) if weight else 1.0
        except ValueError:
            raise argparse.ArgumentTypeError(f"the weight of {name!r} must be a number, "
                                             f"got {weight!r}") from None
    return weights


def _candidates(text):
    return "pc" if text == "pc" else _positive_int(text)


def _add_bn(commands):
    bn = commands.add_parser("bn", help="Bayesian network structure learning")
    bn_commands = bn.add_subparsers(dest="bn_command", required=True)
    learn = bn_commands.add_parser(
        "learn", help="order MCMC on a data set or on data sampled from a network; "
                      "writes a report folder")
    learn.add_argument("data", nargs="?", help="a CSV file with a header line")
    learn.add_argument("--network", help="a shipped network (e.g. alarm) or a BIF file, "
                                         "to sample the data from")
    learn.add_argument("--samples", type=_positive_int, default=1000,
                       help="rows to sample from --network (default 1000)")
    learn.add_argument("--score", choices=("bdeu", "k2", "bic", "bge"), default="bdeu")
    learn.add_argument("--ess", type=float, default=1.0, help="BDeu's equivalent sample size")
    learn.add_argument("--max-parents", type=_positive_int, default=3)
    learn.add_argument("--candidates", type=_candidates, default=None,
                       help="each node's candidate parents: K, the K of largest pairwise "
                            "gain; or pc, the neighbours in the PC-stable skeleton (G² "
                            "tests at level 0.01, conditioning sets up to 2); default all")
    learn.add_argument("--expand", type=int, default=0, metavar="ROUNDS",
                       help="rounds of candidate expansion after each run (BiDAG's iterative "
                            "MCMC): candidates grow by the nodes that would improve the MAP "
                            "DAG's parent sets; default 0")
    learn.add_argument("--chains", type=_positive_int, default=4)
    learn.add_argument("--iterations", type=_positive_int, default=20_000)
    learn.add_argument("--moves", type=_moves, default=None, metavar="MOVE[=WEIGHT],...",
                       help="the moves of order MCMC and their weights, of adjacent, "
                            "transposition, relocate and gibbs_position (a node's position "
                            "drawn from its conditional law: about 2n node scores, and far "
                            "faster climbs on large networks); default "
                            "adjacent,transposition,relocate")
    learn.add_argument("--replicas", type=_positive_int, default=1,
                       help="parallel tempering: replicas per chain, at inverse temperatures "
                            "from 1 down to --hottest in geometric steps, swapping every 10 "
                            "iterations; each costs as much as a chain (default 1: none)")
    learn.add_argument("--hottest", type=float, default=None,
                       help="the hottest replica's inverse temperature, in (0, 1] "
                            "(default 0.3)")
    learn.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                       help="where the score table and the chains run (the same values on "
                            "both; cuda needs numba-cuda and a GPU)")
    learn.add_argument("--seed", type=int, default=0)
    learn.add_argument("--time-limit", type=_positive_float, default=600.0,
                       help="seconds the score table may take, estimated before it starts; "
                            "past it the run is refused, naming the --max-parents and "
                            "--candidates that fit (default 600; inf for no limit)")
    learn.add_argument("--dropna", action="store_true", help="drop rows with missing values")
    learn.add_argument("--missing", default=None, metavar="TOKENS",
                       help="the cells of a CSV file that count as missing, comma-separated "
                            "(\"\" for empty cells only); default: empty, NA, N/A, n/a, NaN, "
                            "nan, -nan, NULL, null, None, #N/A and <NA>")
    learn.add_argument("--out", help="the report folder (default tandem-bn-NAME)")


def _structure_learning(say):
    """Section 6: order MCMC on data sampled from asia, against the exact posteriors."""
    import tandem
    from tandem import bn

    network = bn.load_network("asia")
    root = tandem.Tandem(2024)
    data = network.sample(1000, root.sub("data"))
    table = bn.score_table(data, max_parents=3, progress=False)
    exact = bn.exact_edge_posteriors(table=table)
    result = bn.order_mcmc(table, root.sub("mcmc"), chains=4, iterations=20_000, progress=False)
    p = result.edge_probabilities
    error = float(np.abs(p - exact).max())
    auroc = bn.diagnostics.edge_auroc(p, network.adjacency())
    say("\n7. Structure learning: 1000 rows sampled from the asia network (8 nodes), BDeu, "
        "order MCMC, 4 chains x 20000 iterations:")
    say("   edge                 MCMC    exact   true edge")
    strongest = np.argsort(-p, axis=None)[:8]
    for parent, child in zip(*np.unravel_index(strongest, p.shape)):
        edge = f"{network.names[parent]} -> {network.names[child]}"
        say(f"   {edge:<20} {p[parent, child]:.3f}   {exact[parent, child]:.3f}   "
            f"{'yes' if network.adjacency()[parent, child] else 'no'}")
    say(f"   largest difference from the exact posteriors {error:.3f}; edge AUROC against "
        f"the true graph {auroc:.3f}.  `tandem bn learn --network alarm` writes a report.")
    return error < 0.1


def main(argv=None, out=sys.stdout, err=sys.stderr):
    parser = argparse.ArgumentParser(prog="tandem", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("demo", help="a short tour with checks, on embedded defaults")
    commands.add_parser("compile", help="compile every CPU kernel once, into Numba's cache")
    _add_bn(commands)
    args = parser.parse_args(argv)
    if args.command == "demo":
        return demo(out)
    if args.command == "compile":
        from . import warmup

        print(f"compiled tandem's kernels in {warmup.compile_all():.1f} s", file=out)
        return 0
    if args.command == "bn":
        return _bn_learn(args, out, err)
    return 2

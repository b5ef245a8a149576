"""bench/results.json -> Markdown tables (bench/results.md and docs/benchmarks.md)."""

from __future__ import annotations

from typing import Any


def _f(value: Any, digits: int = 2, suffix: str = "") -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}{suffix}"
    return f"{value}{suffix}"


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return out


def _dropped_peer(d: dict[str, Any]) -> str:
    if d.get("crash"):
        return f"**crashed**: {d['crash']}"
    parts = []
    if d.get("endpoints_skipped"):
        parts.append(f"{d['endpoints_skipped']} endpoints skipped")
    if d.get("responses_omitted"):
        parts.append(f"{d['responses_omitted']} responses omitted")
    if d.get("schemas_removed"):
        parts.append(f"{d['schemas_removed']} schemas removed")
    return ", ".join(parts) or "nothing"


def _dropped_jobgen(d: dict[str, Any], spec_ops: int) -> str:
    if d.get("crash"):
        return f"**failed**: {d['crash']}"
    parts = []
    ops = d.get("operations")
    if ops is not None and ops < spec_ops:
        parts.append(f"{spec_ops - ops} operations missing")
    lines = d.get("warning_lines") or []
    encodings = sum("other encodings of the body" in w for w in lines)
    if encodings:
        parts.append(f"{encodings} alternative body encodings not offered (warned)")
    if d.get("warnings", 0) > encodings:
        parts.append(f"{d['warnings'] - encodings} other warnings")
    return ", ".join(parts) or "nothing"


def generation(results: dict[str, Any]) -> list[str]:
    gen = results.get("generation")
    if not gen:
        return []
    specs = results["specs"]
    lines = [
        "## 1. Generation",
        "",
        (
            "Median wall time of each tool's CLI on the same file, runs alternating (the first "
            "tool swaps every round); ratio = median over rounds of jobgen / peer within the "
            "round (target <= 0.20). A tool that fails is not run again on that spec, so "
            "there the ratio pairs the first round only. CPU ratio: median CPU time (user + "
            "system, with child processes) of jobgen over the peer's, steadier than wall "
            "time on a loaded machine. Peak RSS is the generator process's own (VmHWM; "
            "its ruff subprocesses are not included). Lines are lines of .py files written."
        ),
        "",
    ]
    rows = []
    for key, e in gen.items():
        slug, fmt = key.rsplit(".", 1)
        info = specs[slug]
        jg, peer = e["jobgen"], e["peer"]
        pairs = sorted(j / p for j, p in zip(jg["seconds"], peer["seconds"]))
        ratio = (
            (
                pairs[len(pairs) // 2]
                if len(pairs) % 2
                else (pairs[len(pairs) // 2 - 1] + pairs[len(pairs) // 2]) / 2
            )
            if pairs
            else None
        )
        verdict = "–" if ratio is None else ("yes" if ratio <= 0.2 else f"no (x{ratio / 0.2:.1f})")
        cpu = jg.get("cpu_s") / peer["cpu_s"] if jg.get("cpu_s") and peer.get("cpu_s") else None
        peer_time = _f(peer["median_s"]) + ("" if peer["ok"] else " (failed)")
        rows.append(
            [
                f"{slug} .{fmt}",
                f"{info['bytes'][fmt] / 1e6:.2f} MB",
                f"{jg['runs']}/{peer['runs']}",
                _f(jg["median_s"]),
                peer_time,
                _f(ratio),
                verdict,
                _f(cpu),
                f"{jg['peak_rss_mb']:.0f} / {peer['peak_rss_mb']:.0f}",
                f"{jg.get('files', '–')} / {peer.get('files', '–')}",
                f"{jg.get('py_lines', '–')} / {peer.get('py_lines', '–')}",
                (
                    f"{jg['dropped'].get('operations', '–')} / {peer['dropped'].get('operations', '–')}"
                    f" of {info['operations']}"
                ),
                _dropped_jobgen(jg["dropped"], info["operations"]),
                _dropped_peer(peer["dropped"]),
            ]
        )
    lines += _table(
        [
            "spec",
            "size",
            "runs jg/peer",
            "jobgen s",
            "peer s",
            "ratio",
            "<= 0.2?",
            "CPU ratio",
            "peak RSS MB jg/peer",
            "files jg/peer",
            "lines jg/peer",
            "operations jg/peer",
            "jobgen dropped",
            "peer dropped",
        ],
        rows,
    )
    return lines + [""]


def profile(results: dict[str, Any]) -> list[str]:
    prof = results.get("profile")
    if not prof:
        return []
    if "error" in prof:
        return ["## 1b. Profile of jobgen on OpenAI", "", "```", prof["error"], "```", ""]
    stages = prof["stages_s"]
    total = stages["total"]
    lines = [
        "## 1b. Profile of jobgen on the OpenAI spec (YAML)",
        "",
        f"Stage timings in-process, median of {prof['passes']} pass(es):",
        "",
    ]
    lines += _table(
        ["stage", "seconds", "share"],
        [[k, _f(v), f"{v / total:.0%}"] for k, v in stages.items() if k != "total"]
        + [["total", _f(total), "100%"]],
    )
    lines += [
        "",
        (
            "Self time by file or library (one cProfile pass; builtins = C calls: string "
            "methods, regular expressions, file I/O):"
        ),
        "",
    ]
    lines += _table(
        ["where", "self s", "share"],
        [[r["where"], _f(r["tottime"]), f"{r['share']:.1%}"] for r in prof["by_file"][:10]],
    )
    lines += ["", "Top functions by self time:", ""]
    lines += _table(
        ["function", "calls", "self s", "cumulative s"],
        [
            [f"`{r['function']}`", str(r["calls"]), _f(r["tottime"]), _f(r["cumtime"])]
            for r in prof["top_self"][:10]
        ],
    )
    lines += ["", "jobgen functions by cumulative time:", ""]
    lines += _table(
        ["function", "calls", "cumulative s"],
        [
            [f"`{r['function']}`", str(r["calls"]), _f(r["cumtime"])]
            for r in prof["top_cumulative_jobgen"][:12]
        ],
    )
    return lines + [""]


def imports(results: dict[str, Any]) -> list[str]:
    imp = results.get("imports")
    if not imp:
        return []
    lines = [
        "## 2. Import time of the generated SDK",
        "",
        (
            "Fresh interpreter per run (bytecode compiled beforehand), median; `import pkg`, "
            "then `Model.from_dict(example)`, then one client call over httpx.MockTransport "
            "returning the same example. Target: total < 0.2 s."
        ),
        "",
    ]
    rows = []
    for slug, row in imp.items():
        cells = [slug, f"`{row['operation_id']}` / `{row['schema']}`"]
        for tool in ("jobgen", "peer"):
            r = row.get(tool, {})
            if "error" in r:
                cells.append(f"error: {r['error'][:80]}")
            else:
                cells.append(
                    f"{_f(r.get('import_s'), 3)} + {_f(r.get('model_s'), 3)} + "
                    f"{_f(r.get('call_s'), 3)} = **{_f(r.get('total_s'), 3)}** "
                    f"({_f(r.get('peak_rss_mb'), 0)} MB)"
                )
        jg = row.get("jobgen", {})
        cells.append(_f(row.get("ratio")))
        target = jg.get("total_s")
        cells.append(
            "–" if target is None else ("yes" if target < 0.2 else f"no (+{target - 0.2:.3f} s)")
        )
        rows.append(cells)
    lines += _table(
        [
            "spec",
            "call / model",
            "jobgen s (import + model + call) (peak RSS)",
            "peer s (import + model + call) (peak RSS)",
            "ratio",
            "jobgen < 0.2 s?",
        ],
        rows,
    )
    floor = results.get("import_floor") or {}
    if floor.get("total_s") is not None:
        lines += [
            "",
            (
                f"Floor on this machine in the same run: a fresh interpreter importing only "
                f"httpx, attrs and tenacity (jobgen's runtime dependencies) takes "
                f"{floor['total_s']:.3f} s (median of {floor['runs']})."
            ),
        ]
    top = results.get("importtime_top") or {}
    for tool, data in top.items():
        if data and "groups" in data:
            lines += [
                "",
                f"`-X importtime` of the OpenAI probe, {tool}: {data['modules']} modules, "
                f"{data['total_ms']:.0f} ms of self time; by package: "
                + ", ".join(f"`{g['group']}` {g['self_ms']:.0f} ms" for g in data["groups"][:7])
                + "; largest modules: "
                + ", ".join(f"`{r['module']}` {r['self_ms']:.0f} ms" for r in data["top"][:4]),
            ]
    return lines + [""]


def waiters(results: dict[str, Any]) -> list[str]:
    w = results.get("waiters")
    if not w:
        return []
    lines = [
        "## 3. Waiter efficiency (virtual time)",
        "",
        (
            "Status requests (retries included) and detection lag (job terminal -> waiter "
            "returns), medians over seeded runs with T drawn within +-10 % of the nominal "
            "end; 'early' = requests sent before the previous answer's hint allowed."
        ),
        "",
    ]
    for timeline, data in w.items():
        lines += [f"**{timeline}**", ""]
        rows = []
        for name, r in data["rows"].items():
            outcomes = ", ".join(f"{k} x{v}" for k, v in r["outcomes"].items())
            rows.append(
                [
                    name,
                    _f(r["requests"], 0),
                    _f(r["lag_s"], 1),
                    _f(r["max_lag_s"], 1),
                    _f(r["early_requests"], 0),
                    outcomes,
                ]
            )
        lines += _table(["strategy", "requests", "lag s", "worst lag s", "early", "outcome"], rows)
        lines.append("")
    return lines


def scale(results: dict[str, Any]) -> list[str]:
    s = results.get("scale")
    if not s:
        return []
    lines = [
        "## 4. Scale: one process, 10,000 concurrent waits",
        "",
        (
            f"{s['jobs']} jobs, each terminal on its read {s['reads_per_job']}, all waited at "
            "once over an in-process httpx.MockTransport; medians of the runs."
        ),
        "",
    ]
    rows = []
    bare = s["modes"].get("hand-written loop, same httpx client", {})
    for name, m in s["modes"].items():
        if "error" in m:
            rows.append([name, "error", "", "", "", ""])
            continue
        extra = "–"
        if bare.get("cpu_per_read_us") and name != "hand-written loop, same httpx client":
            extra = f"{m['cpu_per_read_us'] / bare['cpu_per_read_us'] - 1:+.0%}"
        rows.append(
            [
                name,
                f"{m['ok_jobs']}/{s['jobs']}",
                str(m["reads"]),
                _f(m["cpu_per_read_us"], 0),
                extra,
                _f(m["bytes_per_job"] / 1024, 1),
                _f(m["wall_s"], 1),
            ]
        )
    lines += _table(
        [
            "client",
            "jobs ok",
            "reads",
            "CPU us / read",
            "vs hand-written",
            "peak KiB / waiting job",
            "wall s",
        ],
        rows,
    )
    prof = s.get("profile") or {}
    if prof.get("jobgen"):
        shares = prof["jobgen"]["shares"]
        own = shares.get("jobgen", 0) + shares.get("tenacity", 0)
        request = shares.get("httpx", 0) + shares.get("json", 0)
        lines += [
            "",
            (
                f"cProfile split of CPU time ({prof['jobs']} jobs x 3 reads; builtins and "
                "other stdlib time charged to their callers):"
            ),
            "",
        ]
        groups = sorted(set(shares) | set((prof.get("bare") or {}).get("shares", {})))
        lines += _table(
            ["group", "jobgen waiter", "hand-written loop"],
            [
                [
                    g,
                    f"{shares.get(g, 0):.1%}",
                    f"{(prof.get('bare') or {}).get('shares', {}).get(g, 0):.1%}",
                ]
                for g in groups
            ],
        )
        lines += [
            "",
            (
                f"jobgen's own code (SDK + runtime + tenacity) = {own:.1%} of CPU vs "
                f"{request:.1%} in httpx + JSON decoding: overhead **{own / request:.0%} of "
                "the request cost** (target < 10%)."
            ),
            "",
            "Self time in jobgen's code by file: "
            + ", ".join(
                f"`{k}` {v:.2f} s"
                for k, v in list(prof["jobgen"].get("jobgen_self_by_file", {}).items())[:8]
            )
            + ".",
            "",
            "Largest self times in jobgen's code and tenacity: "
            + ", ".join(
                f"`{r['function']}` {r['tottime']:.2f} s"
                for r in prof["jobgen"]["top_jobgen_self"][:8]
            )
            + ".",
        ]
    rate = s.get("rate") or {}
    if "max_reads_in_1s" in rate:
        lines += [
            "",
            (
                f"Client-wide cap `WaitConfig(max_status_reads_per_second="
                f"{rate['rate_cap']:.0f})`, {rate['jobs']} jobs: mean rate "
                f"{rate['mean_rate']:.0f}/s, most reads in any 1 s window "
                f"**{rate['max_reads_in_1s']}** (allowed {rate['rate_cap'] + 1:.0f}): "
                f"cap {'holds' if rate['cap_holds'] else '**exceeded**'}. Reads per "
                f"second from the first: {rate.get('reads_per_second')}."
            ),
        ]
    elif rate:
        lines += ["", f"rate check failed: {rate.get('error', '')[:300]}"]
    return lines + [""]


def size(results: dict[str, Any]) -> list[str]:
    sz = results.get("size")
    if not sz:
        return []
    lines = [
        "## 5. Generated SDK size",
        "",
        (
            "Non-blank, non-comment lines of the YAML-generated packages. jobgen: "
            "`resources/*.py` per operation (sync and async), `models/*.py` per module; peer: "
            "`api/*/*.py` per operation (sync, sync_detailed, asyncio, asyncio_detailed), "
            "`models/*.py` per module. Support = everything else (runtime, client, errors)."
        ),
        "",
    ]
    rows = []
    for slug, row in sz.items():
        jg, peer = row.get("jobgen") or {}, row.get("peer") or {}
        rows.append(
            [
                slug,
                f"{_f(jg.get('lines_per_op'), 0)} / {_f(peer.get('lines_per_op'), 0)}",
                f"{_f(jg.get('lines_per_model'), 0)} / {_f(peer.get('lines_per_model'), 0)}",
                f"{jg.get('models', '–')} / {peer.get('models', '–')}",
                f"{jg.get('support_lines', '–')} / {peer.get('support_lines', '–')}",
                f"{jg.get('total_lines', '–')} / {peer.get('total_lines', '–')}",
            ]
        )
    lines += _table(
        [
            "spec",
            "lines per operation jg/peer",
            "lines per model jg/peer",
            "model modules jg/peer",
            "support lines jg/peer",
            "total lines jg/peer",
        ],
        rows,
    )
    return lines + [""]


def tests(results: dict[str, Any]) -> list[str]:
    t = results.get("tests")
    if not t:
        return []
    limit = t["timeout_s"]
    worst = max((s for _, s in t["slowest"]), default=0.0)
    lines = [
        "## 6. Test suite (`make test`)",
        "",
        (
            f"`jobgen generate --check` and `pytest -n auto --dist loadgroup` (exit {t['rc']}): "
            f"**{t['seconds']:.0f} s** (target < 300 s; "
            f"{'met' if t['seconds'] < 300 and t['rc'] == 0 else 'missed'}), load average "
            f"{_f(t['load_avg'][0])} at the end; {t['summary']}. Slowest test {worst:.0f} s "
            f"({worst / limit:.0%} of its {limit} s timeout; target <= 50 %: "
            f"{'met' if worst <= limit / 2 else 'missed'})."
        ),
        "",
    ]
    lines += _table(
        ["test (setup + call + teardown)", "s", "of timeout"],
        [[f"`{name}`", f"{s:.1f}", f"{s / limit:.0%}"] for name, s in t["slowest"]],
    )
    return lines + [""]


def render(results: dict[str, Any]) -> str:
    env = results.get("environment", {})
    v = env.get("versions", {})
    head = [
        "# Benchmark results",
        "",
        f"{env.get('date')}, {env.get('mode')} run, jobgen {v.get('jobgen')} at "
        f"{env.get('git') or '?'}, Python {env.get('python')}, {env.get('cpus')} CPUs "
        f"(load average {_f(env.get('load_avg_start', [None])[0])} at start, "
        f"{_f((env.get('load_avg_end') or [None])[0])} at end). Peers: openapi-python-client "
        f"{v.get('openapi-python-client')}, botocore {v.get('botocore')}, tenacity "
        f"{v.get('tenacity')}; ruff {v.get('ruff')}, httpx {v.get('httpx')}. "
        f"Sections took: "
        + ", ".join(f"{k} {s:.0f} s" for k, s in results.get("section_seconds", {}).items())
        + ".",
        "",
    ]
    body = (
        generation(results)
        + profile(results)
        + imports(results)
        + waiters(results)
        + scale(results)
        + size(results)
        + tests(results)
    )
    return "\n".join(head + body).rstrip() + "\n"

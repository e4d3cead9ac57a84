#!/usr/bin/env python3
"""Turns one run of scripts/load.sh into a Markdown table.

    table.py TITLE ROWS CPU_TEXT CPU_RAW RATES LABELS_JSON

ROWS: one line per endpoint, "endpoint connections delay LOAD-STATS …" (scripts/load/requests.lua);
CPU_TEXT: the run's CPU line; CPU_RAW: "souk_seconds postgres_seconds nginx_seconds".
Writes "endpoint req/s errors" per endpoint to RATES and the table to stdout.
"""
import json, sys

title, rows_file, cpu_text, cpu_raw, rates_file, labels = sys.argv[1:7]
labels = json.loads(labels)
souk, pg, nginx = (float(x) for x in open(cpu_raw).read().split())
lines, rates, total_rps, total_requests = [], [], 0.0, 0
for row in open(rows_file):
    endpoint, connections, _delay, rest = row.rstrip("\n").split(" ", 3)
    head, _, sample = rest.partition(" sample=")
    v = {k: int(x) for k, x in (kv.split("=", 1) for kv in head.split()[1:])}
    rps = v["requests"] / (v["duration_us"] / 1e6)
    socket = v["connect"] + v["read"] + v["write"] + v["timeout"]
    # wrk's non2xx (4xx and 5xx) are wrong answers too; the third column holds the others.
    wrong = max(v["bad"] - v["non2xx"], 0)
    notes = []
    if sample.strip():
        notes.append("first: " + sample.strip().replace("|", "/"))
    if v["exhausted"]:
        notes.append(f"{v['exhausted']} requests after every unbought pair was used")
    lines.append(f"| {labels[endpoint]} | {connections} | {rps:,.0f} | {v['p50_us'] / 1000:.1f} ms | {v['p99_us'] / 1000:.1f} ms | "
                 f"{v['non2xx']} / {socket} / {wrong}{' (' + '; '.join(notes) + ')' if notes else ''} |")
    rates.append(f"{endpoint} {rps:.1f} {v['non2xx'] + socket + wrong}\n")
    total_rps += rps
    total_requests += v["requests"]
open(rates_file, "w").writelines(rates)
per = lambda seconds: round(seconds / max(total_requests, 1) * 1e6)
print(f"\n**{title}** — {cpu_text}\n")
print("| endpoint | connections | req/s | p50 | p99 | errors (non-2xx / socket / wrong answer) |")
print("| --- | --- | --- | --- | --- | --- |")
print("\n".join(lines))
print(f"| **all** | | **{total_rps:,.0f}** | | | |")
print(f"\nCPU per request of the mix: souk {per(souk)} µs, PostgreSQL {per(pg)} µs" + (f", nginx {per(nginx)} µs." if nginx > 0.5 else "."))

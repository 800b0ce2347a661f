"""For each jersey_loss answered why=queue, how many consecutive rounds before it showed a standing queue."""
import json, glob, sys, collections
def thr(m):
    q = min(max(m >> 3, 4000), 16000)
    half = max(m >> 1, 500)
    return min(q, half)
for f in sorted(glob.glob(sys.argv[1])):
    d = json.load(open(f))
    tr = d["trace"]
    rounds = [e for e in tr if e.get("event") == "jersey_round"]
    losses = [e for e in tr if e.get("event") == "jersey_loss"]
    print(f.split("/")[-1], "goodput", round(d["metrics"]["goodput_bps"]/1e6, 2), "rounds", len(rounds), "losses", len(losses))
    if not rounds:
        continue
    # per round: standing?
    st = [(r["t"], r["min"] - r["rtt_min"] > thr(r["rtt_min"]), r["min"] - r["rtt_min"], r["cwnd"]) for r in rounds]
    runs = collections.Counter()
    k = 0
    hist = []
    for t, s, q, c in st:
        k = k + 1 if s else 0
        hist.append((t, k))
    # distribution of run lengths
    lengths = []; k = 0
    for t, s, q, c in st:
        if s: k += 1
        elif k: lengths.append(k); k = 0
    print("  rounds standing", sum(1 for x in st if x[1]), "of", len(st), "run lengths", sorted(collections.Counter(lengths).items())[:20])
    import bisect
    ts = [h[0] for h in hist]
    for K in (1, 2, 3, 4, 6, 8):
        n = 0
        for e in losses:
            if e.get("why") != "queue":
                continue
            i = bisect.bisect_left(ts, e["t"]) - 1
            if i >= 0 and hist[i][1] >= K:
                n += 1
        print(f"   K={K}: queue answers kept {n} of {sum(1 for e in losses if e.get('why')=='queue')}")
    qs = sorted(x[2] for x in st)
    print("  round excess over rtt_min (ms) p10/p50/p90:", [round(qs[int(len(qs)*p)]/1000,1) for p in (0.1,0.5,0.9)])

#!/usr/bin/python3
"""Fits the identify plugins' confidences and the host's vote on rendered households.

    .build/release/photometer-benchmark-identify TRAIN-SETS... --features train.jsonl
    .build/release/photometer-benchmark-identify TEST-SETS... --features test.jsonl
    Tools/calibrate-identify.py train.jsonl test.jsonl

Each line of a features file is one query: its true meter (empty: never registered) and each
matcher's best candidates as [meter, score, confidence]. Per matcher, a logistic regression on
the best candidate's raw score and its lead over the runner-up gives P(the best candidate is the
right meter); fitted on the training households (other seeds than the benchmark's), it is
reported on the test households: top-1 and unknown meters rejected when the answer needs
P >= 0.5. Then the vote: each meter's log-odds are the weighted sum of the matchers' log-odds
for it, plus a bonus when every matcher ranks it first; weights and bonus are fitted the same way
(plugins.json's weights, IdentifyVote.agreement). Needs python3-numpy.
"""
import json
import math
import sys

import numpy as np

MATCHERS = {"keypoints": ("score", "lead"), "histogram": ("likeness", "margin")}
FLOOR = 0.01  # the belief a matcher gives a meter it does not rank first


def load(path):
    return [json.loads(line) for line in open(path)]


def features(candidates, position=0):
    """(score, lead over the next) of the candidate at `position`; a candidate below the first
    leads by its (negative) distance to the first."""
    if len(candidates) <= position:
        return None
    score = candidates[position][1]
    if position == 0:
        lead = score - (candidates[1][1] if len(candidates) > 1 else 0)
    else:
        lead = score - candidates[0][1]
    return score, lead


def fit_logistic(x, y, l2=1e-3, iterations=50, bias=True):
    """Newton's method on the log-likelihood with a little ridge; x gets a bias column (without
    `bias`, the returned bias is 0)."""
    x = np.asarray(x, dtype=float)
    x = np.hstack([np.ones((len(x), 1)) if bias else np.zeros((len(x), 1)), x])
    y = np.asarray(y, dtype=float)
    w = np.zeros(x.shape[1])
    for _ in range(iterations):
        p = 1 / (1 + np.exp(-x @ w))
        gradient = x.T @ (p - y) + l2 * w
        hessian = (x * (p * (1 - p))[:, None]).T @ x + l2 * np.eye(len(w))
        w -= np.linalg.solve(hessian, gradient)
        if not bias:
            w[0] = 0
    return w


def probability(w, *values):
    z = w[0] + sum(weight * value for weight, value in zip(w[1:], values))
    return 1 / (1 + math.exp(-max(min(z, 40), -40)))


def logit(p):
    p = min(max(p, FLOOR), 1 - FLOOR)
    return math.log(p / (1 - p))


def matcher_beliefs(row, name, w):
    """P(right) for each of the matcher's candidates, by meter."""
    candidates = row[name]
    return {candidates[i][0]: probability(w, *features(candidates, i)) for i in range(len(candidates))}


def vote_features(row, beliefs, meter):
    """Each matcher's log-odds for the meter, and 1 when every matcher ranks it first (matchers
    that fail in different ways seldom agree on a wrong meter), else 0."""
    agreed = all(row[name] and row[name][0][0] == meter for name in MATCHERS)
    return [logit(beliefs[name].get(meter, FLOOR)) for name in MATCHERS] + [1.0 if agreed else 0.0]


def report(title, rows, answer):
    known = [r for r in rows if r["truth"]]
    unknown = [r for r in rows if not r["truth"]]
    right = sum(1 for r in known if answer(r) == r["truth"])
    rejected = sum(1 for r in unknown if answer(r) is None)
    print(f"  {title:<34} top-1 {100 * right / max(len(known), 1):5.1f}%   "
          f"unknown rejected {100 * rejected / max(len(unknown), 1):5.1f}%")


def main():
    train, test = load(sys.argv[1]), load(sys.argv[2])
    weights = {}
    for name, labels in MATCHERS.items():
        x, y = [], []
        for row in train:
            f = features(row[name])
            if f is None:
                continue
            x.append(f)
            y.append(1 if row[name][0][0] == row["truth"] else 0)
        weights[name] = fit_logistic(x, y)
        w = weights[name]
        print(f"{name}: P = 1 / (1 + exp(-({w[0]:.3f} + {w[1]:.4f} {labels[0]} + {w[2]:.4f} {labels[1]})))")

    # The vote: log-odds of each meter = sum of weight x matcher log-odds, without a bias of its
    # own, so that a matcher that failed (no term) leaves the others' beliefs as they are.
    x, y = [], []
    for row in train:
        beliefs = {name: matcher_beliefs(row, name, weights[name]) for name in MATCHERS}
        for meter in set().union(*beliefs.values()):
            x.append(vote_features(row, beliefs, meter))
            y.append(1 if meter == row["truth"] else 0)
    vote = fit_logistic(x, y, bias=False)
    print("vote: log-odds = " + " + ".join(f"{v:.3f} x {name}" for v, name in zip(vote[1:], MATCHERS))
          + f" + {vote[-1]:.3f} if every matcher ranks the meter first")

    def vote_answer(row, vote=vote):
        beliefs = {name: matcher_beliefs(row, name, weights[name]) for name in MATCHERS}
        best, best_p = None, 0
        for meter in set().union(*beliefs.values()):
            p = probability(vote, *vote_features(row, beliefs, meter))
            if p > best_p:
                best, best_p = meter, p
        return best if best_p >= 0.5 else None

    for title, rows in [("training households", train), ("test households", test)]:
        print(f"{title}:")
        for household in sorted({r["set"] for r in rows}):
            subset = [r for r in rows if r["set"] == household]
            print(f" {household}")
            for name in MATCHERS:
                report(f"{name} (calibrated)", subset,
                       lambda r, n=name: r[n][0][0] if r[n] and probability(weights[n], *features(r[n])) >= 0.5 else None)
                report(f"{name} (shipped confidence)", subset,
                       lambda r, n=name: r[n][0][0] if r[n] and r[n][0][2] >= 0.5 else None)
            report("vote (fitted log-odds)", subset, vote_answer)


if __name__ == "__main__":
    main()

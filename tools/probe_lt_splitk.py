"""Probe: how fast can cuBLASLt run the MLP step's float32 products when its candidates are
timed inside a CUDA graph (as irc runs them), with and without split-K?

For each product of the 256×784 → 512 → 10 MLP step, prints the heuristic's first choice,
the best of its first 64 candidates, and the best split-K variant (2–16 splits, reduced
through a workspace, deterministic), against torch.mm in the same graph setting.

    python3 tools/probe_lt_splitk.py
"""
from __future__ import annotations

import ctypes

import torch

from graph_timing import graph_us  # beside this file (tools/ is on the path)

CONFIG_SPLITK_NUM, CONFIG_REDUCTION_SCHEME = 2, 3
SCHEME_COMPUTE_TYPE, SCHEME_OUTPUT_TYPE = 2, 4
CUDA_R_32F, COMPUTE_32F = 0, 68
WORKSPACE = 32 << 20
CALLS = 20

lib = ctypes.CDLL("libcublasLt.so.13")
handle = ctypes.c_void_p()
assert lib.cublasLtCreate(ctypes.byref(handle)) == 0


class Algo(ctypes.Structure):
    _fields_ = [("data", ctypes.c_uint64 * 8)]


class Heuristic(ctypes.Structure):
    _fields_ = [("algo", Algo), ("workspace_size", ctypes.c_size_t), ("state", ctypes.c_int),
                ("waves", ctypes.c_float), ("reserved", ctypes.c_int * 4)]


def layout(rows: int, cols: int, ld: int) -> ctypes.c_void_p:
    h = ctypes.c_void_p()
    assert lib.cublasLtMatrixLayoutCreate(ctypes.byref(h), CUDA_R_32F, ctypes.c_uint64(rows), ctypes.c_uint64(cols),
                                          ctypes.c_int64(ld)) == 0
    return h


def probe(name: str, m: int, k: int, n: int, ta: bool, tb: bool) -> None:
    """Row-major C(m×n) = op(A)·op(B), run as column-major Cᵀ = op(B)ᵀ·op(A)ᵀ."""
    A = torch.randn(*((k, m) if ta else (m, k)), device="cuda")
    B = torch.randn(*((n, k) if tb else (k, n)), device="cuda")
    C = torch.empty(m, n, device="cuda")
    ws = torch.empty(WORKSPACE, dtype=torch.uint8, device="cuda")
    ref = (A.t() if ta else A) @ (B.t() if tb else B)
    desc = ctypes.c_void_p()
    assert lib.cublasLtMatmulDescCreate(ctypes.byref(desc), COMPUTE_32F, CUDA_R_32F) == 0
    for attr, t in ((3, tb), (4, ta)):
        v = ctypes.c_int(int(t))
        assert lib.cublasLtMatmulDescSetAttribute(desc, attr, ctypes.byref(v), ctypes.c_size_t(4)) == 0
    la = layout(k, n, k) if tb else layout(n, k, n)
    lb = layout(m, k, m) if ta else layout(k, m, k)
    lc = layout(n, m, n)
    pref = ctypes.c_void_p()
    lib.cublasLtMatmulPreferenceCreate(ctypes.byref(pref))
    limit = ctypes.c_uint64(WORKSPACE)
    lib.cublasLtMatmulPreferenceSetAttribute(pref, 1, ctypes.byref(limit), ctypes.c_size_t(8))
    found = (Heuristic * 64)()
    count = ctypes.c_int()
    assert lib.cublasLtMatmulAlgoGetHeuristic(handle, desc, la, lb, lc, lc, pref, 64, found, ctypes.byref(count)) == 0
    alpha, beta = ctypes.c_float(1.0), ctypes.c_float(0.0)

    def runner(algo: Algo):
        def launch(stream: int) -> None:
            st = lib.cublasLtMatmul(handle, desc, ctypes.byref(alpha), ctypes.c_void_p(B.data_ptr()), la,
                                    ctypes.c_void_p(A.data_ptr()), lb, ctypes.byref(beta),
                                    ctypes.c_void_p(C.data_ptr()), lc, ctypes.c_void_p(C.data_ptr()), lc,
                                    ctypes.byref(algo), ctypes.c_void_p(ws.data_ptr()), ctypes.c_size_t(WORKSPACE),
                                    ctypes.c_void_p(stream))
            if st:
                raise RuntimeError(f"cublasLtMatmul {st}")
        return launch

    def checked(algo: Algo) -> float | None:
        try:
            us = graph_us(runner(algo), CALLS, 7)
        except RuntimeError:
            return None
        err = (C - ref).abs().max().item() / max(1.0, ref.abs().max().item())
        return us if err < 1e-4 else None

    results = []
    for i in range(count.value):
        if found[i].state == 0:
            us = checked(found[i].algo)
            if us is not None:
                results.append((us, i, 1, 0))
    first = results[0][0] if results and results[0][1] == 0 else None
    split_results = []
    for _, i, _, _ in sorted(results)[:6]:
        for splits in (2, 3, 4, 6, 8, 12, 16):
            for scheme in (SCHEME_COMPUTE_TYPE, SCHEME_OUTPUT_TYPE):
                algo = Algo()
                ctypes.memmove(ctypes.byref(algo), ctypes.byref(found[i].algo), ctypes.sizeof(Algo))
                sv, rv = ctypes.c_uint32(splits), ctypes.c_uint32(scheme)
                if lib.cublasLtMatmulAlgoConfigSetAttribute(ctypes.byref(algo), CONFIG_SPLITK_NUM, ctypes.byref(sv),
                                                            ctypes.c_size_t(4)):
                    continue
                if lib.cublasLtMatmulAlgoConfigSetAttribute(ctypes.byref(algo), CONFIG_REDUCTION_SCHEME,
                                                            ctypes.byref(rv), ctypes.c_size_t(4)):
                    continue
                chk = Heuristic()
                if lib.cublasLtMatmulAlgoCheck(handle, desc, la, lb, lc, lc, ctypes.byref(algo), ctypes.byref(chk)):
                    continue
                if chk.workspace_size > WORKSPACE:
                    continue
                us = checked(algo)
                if us is not None:
                    split_results.append((us, i, splits, scheme))
    At, Bt = (A.t() if ta else A), (B.t() if tb else B)
    torch_us = graph_us(lambda s: torch.mm(At, Bt, out=C), CALLS, 7)
    best = min(results) if results else None
    best_split = min(split_results) if split_results else None
    print(f"{name:28s} m={m} k={k} n={n}: heuristic first {first and round(first, 2)} µs; "
          f"best of {len(results)} {best and round(best[0], 2)} (#{best and best[1]}); "
          f"best split-K {best_split and round(best_split[0], 2)} {best_split and best_split[1:]}; "
          f"torch.mm {torch_us:.2f}", flush=True)


def main() -> None:
    torch.backends.cuda.matmul.allow_tf32 = False
    print(torch.cuda.get_device_name(), flush=True)
    probe("X·W1", 256, 784, 512, False, False)
    probe("h·W2", 256, 512, 10, False, False)
    probe("δ2·W2ᵀ", 256, 10, 512, False, True)
    probe("hᵀ·δ2 (W2 grad)", 512, 256, 10, True, False)
    probe("Xᵀ·δ1 (W1 grad)", 784, 256, 512, True, False)


if __name__ == "__main__":
    main()

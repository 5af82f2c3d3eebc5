// RUN: irc-opt %s -t ptx --gpu-arch sm_80 | filecheck %s --check-prefix=SM80
// RUN: irc-opt %s -t ptx | filecheck %s --check-prefix=DEFAULT
// RUN: not irc-opt %s -t ptx --gpu-arch 80 2>&1 | filecheck %s --check-prefix=BAD

// `--gpu-arch` picks the architecture the kernels are compiled for; sm_90 otherwise.
// SM80: .target sm_80
// SM80: .entry f_kernel0(
// DEFAULT: .target sm_90
// BAD: argument --gpu-arch: '80' is not a CUDA architecture (e.g. sm_80, sm_90)
func.func @f(%x: tensor<?xf32, "cuda">) -> tensor<?xf32, "cuda"> {
  %r = tensor.exp %x : (tensor<?xf32, "cuda">) -> tensor<?xf32, "cuda">
  func.return %r : tensor<?xf32, "cuda">
}

"""Per-launch profile of the LR step on the device (run on the GPU machine)."""
import sys
sys.path.insert(0, "tools")
import bench_gpu_steps as steps
g = steps.lr_irc(True)
for _ in range(200):
    g()
g.profile.summary()

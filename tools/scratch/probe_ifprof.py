import io
import numpy as np
import irc, irc.tensor as T
from irc.ifelse import ifelse
c, x = T.fscalar("c"), T.fvector("x")
f = irc.function([c, x], ifelse(c > 0, T.exp(x) * 2, x - 1), profile=True)
for v in (1.0, 1.0, -1.0):
    f(np.float32(v), np.ones(5, "float32"))
buf = io.StringIO(); f.profile.summary(buf)
t = buf.getvalue(); i = t.find("Apply\n"); print(t[i:i + 1200])

"""`pool_2d` for non-overlapping windows that drop the border (`ignore_border=True`, the
tutorials' case), max or average, as a reshape and a reduction in PyTensor."""
import pytensor.tensor as pt


def pool_2d(input, ws=None, ignore_border=None, stride=None, pad=(0, 0), mode="max", ds=None,
            st=None, padding=None):
    ws = tuple(ws if ws is not None else ds)
    stride = stride if stride is not None else st
    if not ignore_border or (stride is not None and tuple(stride) != ws) or tuple(pad) != (0, 0):
        raise NotImplementedError("the reference pool_2d does ignore_border=True, stride=ws, no pad")
    h, w = input.shape[-2] // ws[0], input.shape[-1] // ws[1]
    cropped = input[..., :h * ws[0], :w * ws[1]]
    lead = [input.shape[i] for i in range(input.ndim - 2)]
    blocks = cropped.reshape(lead + [h, ws[0], w, ws[1]], ndim=input.ndim + 2)
    axes = (input.ndim - 1, input.ndim + 1)
    return pt.max(blocks, axis=axes) if mode == "max" else pt.mean(blocks, axis=axes)

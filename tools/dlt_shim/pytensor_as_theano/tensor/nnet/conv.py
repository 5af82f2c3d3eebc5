"""`theano.tensor.nnet.conv.conv2d` in PyTensor's graph ops: a true convolution (the filters
flipped), border mode 'valid', stride 1, as the sum over the filter's positions of a
tensordot of the shifted input window; it needs `filter_shape` (the tutorials give it)."""
import pytensor.tensor as pt


def conv2d(input, filters, filter_shape=None, image_shape=None, border_mode="valid",
           subsample=(1, 1), **kwargs):
    if border_mode != "valid" or tuple(subsample) != (1, 1):
        raise NotImplementedError("the reference conv2d does border_mode='valid', stride 1")
    if filter_shape is None:
        raise NotImplementedError("the reference conv2d needs filter_shape")
    _, _, kh, kw = filter_shape
    flipped = filters[:, :, ::-1, ::-1]
    out_h = input.shape[2] - kh + 1
    out_w = input.shape[3] - kw + 1
    total = 0
    for u in range(kh):
        for v in range(kw):
            window = input[:, :, u:u + out_h, v:v + out_w]  # (batch, channel, h, w)
            total = total + pt.tensordot(window, flipped[:, :, u, v], axes=[[1], [1]])
    return total.dimshuffle(0, 3, 1, 2)  # (batch, h, w, filter) -> (batch, filter, h, w)

"""`theano.tensor.nnet.conv.conv2d` in PyTensor's graph ops: a true convolution (the filters
flipped), border mode 'valid', stride 1, as one matrix product of the input's windows laid
out as rows (im2col) with the filters; it needs `filter_shape` (the tutorials give it)."""
import pytensor.tensor as pt


def conv2d(input, filters, filter_shape=None, image_shape=None, border_mode="valid",
           subsample=(1, 1), **kwargs):
    if border_mode != "valid" or tuple(subsample) != (1, 1):
        raise NotImplementedError("the reference conv2d does border_mode='valid', stride 1")
    if filter_shape is None:
        raise NotImplementedError("the reference conv2d needs filter_shape")
    n_filters, channels, kh, kw = filter_shape
    batch = input.shape[0]
    out_h = input.shape[2] - kh + 1
    out_w = input.shape[3] - kw + 1
    windows = pt.stack([input[:, :, u:u + out_h, v:v + out_w]
                        for u in range(kh) for v in range(kw)], axis=2)  # (b, c, kh*kw, h, w)
    rows = windows.dimshuffle(0, 3, 4, 1, 2).reshape((batch * out_h * out_w, channels * kh * kw))
    columns = filters[:, :, ::-1, ::-1].reshape((n_filters, channels * kh * kw)).T
    out = pt.dot(rows, columns).reshape((batch, out_h, out_w, n_filters))
    return out.dimshuffle(0, 3, 1, 2)

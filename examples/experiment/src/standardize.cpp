// Standardizes the features with the training set's statistics: the mean by
// cblas_dgemv (X^T 1 / n), the covariance of the centred features by
// cblas_dgemm (Xc^T Xc / (n - 1)), whose diagonal gives each feature's
// standard deviation. Both tables are then centred and scaled alike and
// written as float32 .npy tables (the features, then the label), what the
// PyTorch steps train and evaluate on. The largest correlation between two
// features, read off the same covariance, is recorded as a metric.
#include <cblas.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "experiment.h"
#include "pipe/npy.h"

namespace {

struct Table {
    pipe_npy_array a{};
    ~Table() { pipe_npy_free(&a); }
    size_t rows() const { return a.shape[0]; }
    size_t cols() const { return a.shape[1]; }
    const double *data() const { return static_cast<const double *>(a.data); }
};

// Reads a float64 table of at least two columns (features, then the label).
bool read_table(pipe_ctx *ctx, const char *input, Table &t)
{
    char err[512];
    if (pipe_npy_read(pipe_input_path(ctx, input), &t.a, err, sizeof err) != 0) {
        pipe_fail(ctx, "%s", err);
        return false;
    }
    if (t.a.dtype != PIPE_F64 || t.a.ndim != 2 || t.cols() < 2 || t.rows() < 2) {
        pipe_fail(ctx, "input %s: expected a float64 table of 2 or more rows and columns (%s, %d dimensions)", input,
                  pipe_npy_dtype_name(t.a.dtype), t.a.ndim);
        return false;
    }
    return true;
}

// (x - mean) / sd for the feature columns; the label column as it is.
bool write_standardized(pipe_ctx *ctx, const char *output, const Table &t, const std::vector<double> &mean,
                        const std::vector<double> &sd)
{
    const size_t n = t.rows(), cols = t.cols(), d = cols - 1;
    std::vector<float> out(n * cols);
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < d; j++)
            out[i * cols + j] = (float)((t.data()[i * cols + j] - mean[j]) / sd[j]);
        out[i * cols + d] = (float)t.data()[i * cols + d];
    }
    char err[512];
    size_t shape[2] = {n, cols};
    std::FILE *f = pipe_output_open(ctx, output);
    if (!f) {
        pipe_fail(ctx, "%s", pipe_last_error(ctx));
        return false;
    }
    if (pipe_npy_write_stream(f, PIPE_F32, 2, shape, out.data(), err, sizeof err) != 0) {
        pipe_fail(ctx, "%s: %s", output, err);
        return false;
    }
    return true;
}

} // namespace

extern "C" int standardize(pipe_ctx *ctx, const experiment_standardize_args *args)
{
    (void)args; // the inputs are read by name
    Table train, test;
    if (!read_table(ctx, "train", train) || !read_table(ctx, "test", test))
        return 1;
    if (test.cols() != train.cols())
        return pipe_fail(ctx, "the test table has %zu columns, the training table %zu", test.cols(), train.cols());
    const size_t n = train.rows(), cols = train.cols(), d = cols - 1;

    // mean (d) = X^T 1 / n, X being the first d columns of the n x cols table
    std::vector<double> ones(n, 1.0), mean(d);
    cblas_dgemv(CblasRowMajor, CblasTrans, (int)n, (int)d, 1.0 / (double)n, train.data(), (int)cols, ones.data(), 1,
                0.0, mean.data(), 1);
    std::vector<double> centred(n * d);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < d; j++)
            centred[i * d + j] = train.data()[i * cols + j] - mean[j];
    // cov (d x d) = Xc^T Xc / (n - 1)
    std::vector<double> cov(d * d);
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)d, (int)d, (int)n, 1.0 / (double)(n - 1),
                centred.data(), (int)d, centred.data(), (int)d, 0.0, cov.data(), (int)d);

    std::vector<double> sd(d);
    double smallest = INFINITY, largest = 0.0, max_corr = 0.0;
    for (size_t j = 0; j < d; j++) {
        sd[j] = std::sqrt(cov[j * d + j]);
        if (!(sd[j] > 0.0))
            return pipe_fail(ctx, "feature %zu is constant in the training set: it cannot be standardized", j);
        smallest = std::fmin(smallest, sd[j]);
        largest = std::fmax(largest, sd[j]);
    }
    for (size_t j = 0; j < d; j++)
        for (size_t k = j + 1; k < d; k++)
            max_corr = std::fmax(max_corr, std::fabs(cov[j * d + k]) / (sd[j] * sd[k]));
    pipe_log(ctx, "%zu features of %zu training points, standard deviations %.3g to %.3g, largest correlation %.3f", d,
             n, smallest, largest, max_corr);
    if (!write_standardized(ctx, "train_std", train, mean, sd) || !write_standardized(ctx, "test_std", test, mean, sd))
        return 1;
    pipe_metric(ctx, "max_feature_correlation", max_corr);
    return 0;
}

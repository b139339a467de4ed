// Labelled points for the classifier: x ~ N(0, 1)^features, the label the
// class whose random direction scores highest (scores = X W with OpenBLAS's
// sgemm), a little noise on the scores. 80% train, 20% test, as .npy tables
// of float32: the features, then the label.
#include <cblas.h>

#include <algorithm>
#include <random>
#include <vector>

#include "classify.h"
#include "npy.hpp"

extern "C" int make_data(pipe_ctx *ctx, const classify_make_data_args *args)
{
    const size_t n = (size_t)args->samples, d = (size_t)args->features, k = (size_t)args->classes;
    if (n < 10 || d < 1 || k < 2)
        return pipe_fail(ctx, "need samples >= 10, features >= 1, classes >= 2 (got %zu, %zu, %zu)", n, d, k);
    std::mt19937_64 rng((unsigned long long)args->seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> x(n * d), w(d * k), scores(n * k);
    for (float &v : x)
        v = normal(rng);
    for (float &v : w)
        v = normal(rng);
    // scores (n x k) = x (n x d) * w (d x k)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)k, (int)d, 1.0f, x.data(), (int)d, w.data(),
                (int)k, 0.0f, scores.data(), (int)k);

    const size_t n_train = n * 4 / 5, cols = d + 1;
    std::vector<float> train(n_train * cols), test((n - n_train) * cols);
    std::vector<size_t> counts(k, 0);
    for (size_t i = 0; i < n; i++) {
        size_t label = 0;
        for (size_t c = 0; c < k; c++) {
            scores[i * k + c] += 0.1f * normal(rng);
            if (scores[i * k + c] > scores[i * k + label])
                label = c;
        }
        counts[label]++;
        float *row = i < n_train ? &train[i * cols] : &test[(i - n_train) * cols];
        std::copy(&x[i * d], &x[i * d] + d, row);
        row[d] = (float)label;
    }
    pipe_log(ctx, "%zu points, %zu features, %zu classes (largest class %zu points)", n, d, k,
             *std::max_element(counts.begin(), counts.end()));
    std::FILE *tr = pipe_output_open(ctx, "train"), *te = pipe_output_open(ctx, "test");
    if (!tr || !te)
        return pipe_fail(ctx, "%s", pipe_last_error(ctx));
    if (!write_npy(tr, train, n_train, cols) || !write_npy(te, test, n - n_train, cols))
        return pipe_fail(ctx, "cannot write the tables");
    pipe_metric(ctx, "train_points", (double)n_train);
    return 0;
}

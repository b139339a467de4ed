"""Makes the data set: labelled points around one centre per class, whose
features are then put on very different scales (from 0.01 to 1000) and
offsets, as raw measurements often are; the standardize step undoes that.
80% train, 20% test, as float64 tables: the features, then the label."""
import numpy as np

import pipe


def main():
    samples = pipe.param("samples")
    features = pipe.param("features")
    classes = pipe.param("classes")
    seed = pipe.param("seed")
    if samples < 10 or features < 1 or classes < 2:
        raise SystemExit(f"need samples >= 10, features >= 1, classes >= 2 (got {samples}, {features}, {classes})")

    rng = np.random.default_rng(seed)
    centres = rng.normal(0.0, 1.0, (classes, features))
    labels = rng.integers(0, classes, samples)
    x = centres[labels] + rng.normal(0.0, 1.0, (samples, features))
    x = x * 10.0 ** rng.uniform(-2.0, 3.0, features) + rng.normal(0.0, 100.0, features)
    table = np.column_stack([x, labels]).astype(np.float64)

    n_train = samples * 4 // 5
    # np.save(path, ...) would write path + ".npy": give it the open file.
    with open(pipe.output_path("train"), "wb") as f:
        np.save(f, table[:n_train])
    with open(pipe.output_path("test"), "wb") as f:
        np.save(f, table[n_train:])
    print(f"{n_train} training and {samples - n_train} test points, {features} features, {classes} classes")


if __name__ == "__main__":
    main()

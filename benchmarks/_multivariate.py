"""The multivariate laws that benchmarks/cpu.py and benchmarks/gpu.py time, with
their parameters: ``label -> (name, parameters)``, ``DIMENSION`` values a row."""

import numpy as np

DIMENSION = 8
LAWS = {
    "multivariate_normal(d=8)": ("multivariate_normal",
                                 (np.zeros(DIMENSION), 0.5 * np.eye(DIMENSION) + 0.5)),
    "dirichlet(d=8)": ("dirichlet", (np.linspace(0.5, 4.0, DIMENSION),)),
    "multinomial(100, d=8)": ("multinomial", (100, np.full(DIMENSION, 1 / DIMENSION))),
}

"""`keras.datasets`: Keras's small datasets, read from Keras's cache folder (~/.keras/datasets) and downloaded
from Keras's addresses when missing (_cache.py). Each loader returns what Keras's returns, in the same order."""

import minitf.keras.datasets.boston_housing as boston_housing
import minitf.keras.datasets.california_housing as california_housing
import minitf.keras.datasets.cifar10 as cifar10
import minitf.keras.datasets.cifar100 as cifar100
import minitf.keras.datasets.fashion_mnist as fashion_mnist
import minitf.keras.datasets.imdb as imdb
import minitf.keras.datasets.mnist as mnist
import minitf.keras.datasets.reuters as reuters

__all__ = [
    "boston_housing",
    "california_housing",
    "cifar10",
    "cifar100",
    "fashion_mnist",
    "imdb",
    "mnist",
    "reuters",
]

"""The book's figure helper takes its grid in matplotlib's order (rows, then columns)."""
import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from kmlib.book import plotting  # noqa: E402


def test_figure_grid_is_rows_then_columns_like_subplots():
    fig, axes = plotting.figure(1, 2)
    assert axes.shape == (2,)
    (r0, c0, _, _), (r1, c1, _, _) = (ax.get_subplotspec().get_geometry() for ax in axes)
    # one row, two columns: both panels share the row, the grid has 2 columns
    assert (r0, c0) == (1, 2) and (r1, c1) == (1, 2)
    plt.close(fig)
    fig, axes = plotting.figure(3, 1)
    assert axes.shape == (3,) and axes[0].get_subplotspec().get_geometry()[:2] == (3, 1)
    plt.close(fig)
    fig, axes = plotting.figure(ncols=2, nrows=3)
    assert axes.shape == (3, 2)
    plt.close(fig)

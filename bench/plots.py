"""Charts for the evaluation scripts, drawn with matplotlib (Debian: python3-matplotlib):
grouped bars and lines, each written as SVG and PDF.

  bars(path, title, ylabel, groups, series, values, baseline=None)
      groups: category names along x (e.g. samples); series: names of the bars within a
      group (e.g. configurations); values[s][g]: height of series s in group g (None: no
      bar). baseline: a y value drawn as a line (e.g. 1.0 for normalized IPC).
  lines(path, title, xlabel, ylabel, xs, series, values)
      xs: x positions (numbers); values[s][i]: y of series s at xs[i] (None skips).

path is the SVG's; the PDF goes beside it. Importing this module under a Python that
lacks matplotlib runs the script again under Debian's /usr/bin/python3, which has it.
"""
import os
import sys

try:
    import matplotlib
except ImportError:
    if os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3") and \
            os.access("/usr/bin/python3", os.X_OK):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    sys.exit(f"{sys.argv[0]}: needs matplotlib (Debian: apt-get install python3-matplotlib)")
matplotlib.use("Agg")
matplotlib.rcParams["svg.hashsalt"] = "xgpu-bench"  # the same SVG for the same data
import matplotlib.pyplot as plt  # noqa: E402


def _save(fig, path):
    fig.tight_layout()
    fig.savefig(path, metadata={"Date": None})
    fig.savefig(os.path.splitext(path)[0] + ".pdf", metadata={"CreationDate": None})
    plt.close(fig)


def bars(path, title, ylabel, groups, series, values, baseline=None):
    fig, ax = plt.subplots(figsize=(10, 4.2))
    width = 0.8 / max(1, len(series))
    for j, name in enumerate(series):
        xs = [i + j * width for i, v in enumerate(values[j]) if v is not None]
        ys = [v for v in values[j] if v is not None]
        ax.bar(xs, ys, width, label=name)
    if baseline is not None:
        ax.axhline(baseline, color="black", linewidth=0.8, linestyle="--")
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(groups))], groups,
                  rotation=45, ha="right", fontsize="small")
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.01, 0.5))
    _save(fig, path)


def lines(path, title, xlabel, ylabel, xs, series, values):
    fig, ax = plt.subplots(figsize=(7, 4))
    for name, ys in zip(series, values):
        pts = [(x, y) for x, y in zip(xs, ys) if y is not None]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if len(series) > 1:
        ax.legend(fontsize="small")
    _save(fig, path)

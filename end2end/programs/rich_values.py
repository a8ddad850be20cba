"""A paused call holding data to look at: a DataFrame, a figure, and an object whose own HTML
tries to run script in the page."""

import breakroom
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402


class Hostile:
    def _repr_html_(self):
        return (
            "<script>parent.document.title = 'owned'; alert('script')</script>"
            "<img src=x onerror=\"alert('onerror')\"><b class=inside>inside the frame</b>"
        )


@breakroom.breakpoint
def explore(df, fig, hostile):
    return len(df)


df = pd.DataFrame({"n": range(5000), "name": [f"row{i}" for i in range(5000)]})
fig, ax = plt.subplots()
ax.plot([1, 3, 2])
hostile = Hostile()
explore(df, fig, hostile)

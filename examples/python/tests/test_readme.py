# README.md's Python example runs as printed and gives the numbers the README quotes.
import contextlib
import io
import os
import re

README = os.path.join(os.path.dirname(__file__), "..", "..", "..", "README.md")


def test_readme_python_example_runs():
    with open(README, encoding="utf-8") as f:
        text = f.read()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks, "README.md has no python block"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for block in blocks:
            exec(compile(block, "README.md", "exec"), {})
    printed = out.getvalue()
    assert "TokenTime(read=17.30 ms, transfer=1.64 ms, total=18.94 ms" in printed
    # the training line: a step, an MFU, the breakdown (its numbers are test_training.py's business)
    assert re.match(r"\d+\.\d\d s 0\.\d+ \{'compute': ", printed.splitlines()[1])

"""Only what pyproject.toml cannot say: `breakroom-hook.pth` goes to the top of site-packages,
beside the package, where Python runs its `import breakroom_hook` at every start (issue 53)."""

import os

from setuptools import setup
from setuptools.command.build_py import build_py

HOOK = "breakroom-hook.pth"


class BuildWithHook(build_py):
    def run(self):
        super().run()
        here = os.path.dirname(os.path.abspath(__file__))
        self.copy_file(os.path.join(here, HOOK), os.path.join(self.build_lib, HOOK))


setup(cmdclass={"build_py": BuildWithHook})

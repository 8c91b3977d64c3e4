"""The lit test format of test/tsan (lit.local.cfg): the multi-thread tests of
test/run, run again from this suite.  A module of its own, not part of
lit.local.cfg, because lit's workers unpickle the tests by class name."""
import os
import re

import lit.formats
import lit.Test


class FromRun(lit.Test.Test):
    """A test of this suite whose source is a file of test/run."""

    def __init__(self, suite, path_in_suite, config, source):
        super().__init__(suite, path_in_suite, config)
        self.source = source

    def getSourcePath(self):
        return self.source


class MultiThreadRunTests(lit.formats.ShTest):
    """The test/run/*.c files that call pthread_create; only those named in
    `quick` (a set of file names) unless `quick` is None."""

    def __init__(self, quick, **kw):
        super().__init__(**kw)
        self.quick = quick

    def getTestsInDirectory(self, testSuite, path_in_suite, litConfig, localConfig):
        run = os.path.join(testSuite.getSourcePath(()), "run")
        for name in sorted(os.listdir(run)):
            path = os.path.join(run, name)
            if not name.endswith(".c") or not os.path.isfile(path):
                continue
            if self.quick is not None and name not in self.quick:
                continue
            with open(path) as f:
                if re.search(r"\bpthread_create\s*\(", f.read()):
                    yield FromRun(testSuite, path_in_suite + (name,), localConfig, path)

"""Read: the paths a user names, walked to files (:mod:`lint.read.walk`), and each file's bytes to numbered
text lines (:mod:`lint.read.source`)."""

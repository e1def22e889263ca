"""`python -m albert_tf.commands COMMAND [flags]`: the `albert-tf` console script."""

import sys

from albert_tf.commands.dispatch import main

sys.exit(main())

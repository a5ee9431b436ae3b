"""The built-in functions of the Terraform language, a module per family as terraform's
documentation groups them:

    arguments      what every family does with its arguments (no functions of its own)
    collections    length, concat, merge, keys, lookup, element, flatten, sort, range, ...
    conversion     tobool, tolist, tomap, tonumber, toset, tostring, sensitive, nonsensitive
    encoding       jsonencode, jsondecode, base64encode, base64decode
    filesystem     file, filebase64, fileexists, abspath, basename, dirname, pathexpand
    formatting     format (Go's fmt verbs)
    hashing        md5, sha1, sha256, sha512, filemd5, filesha1, filesha256, filesha512
    numeric        abs, ceil, floor, max, min
    strings        upper, lower, split, join, replace, substr, trim..., startswith, ...
    registry       FUNCTIONS: every function by name, as the evaluator calls it; PARAMS, signature

``try`` and ``can`` take expressions, not values: the evaluator runs them (:mod:`engine.lang.calls`).

Each function follows its cty/terraform counterpart: an argument that is wholly unknown makes the
result unknown, while an argument that is only partly unknown (a tuple with one unknown element,
say) still gives a result wherever that result doesn't depend on the unknown part. A function
raises :class:`engine.diagnostics.FunctionError` for a value it cannot take; the registry turns any
other exception into one, and checks the number of arguments before the call.

To add a function: write it in its family's module (a new family is a new module, added to
``registry._FAMILIES``), taking and returning values (:mod:`engine.values`), and add its terraform
signature to that module's ``SIGNATURES`` table, as ``"name(param, other, rest...)": impl`` with
terraform's parameter names (its diagnostics quote them; ``...`` marks a variadic one). The
registry does the rest. Its tests: a row in each table of ``tests/engine/functions/test_tables.py``
(a normal call, an unknown argument, a bad argument, terraform's results; the coverage test there
fails until it has them), and its own behaviours in ``tests/engine/functions/test_<family>.py``.

Modules import each other in this order, never back: arguments; numeric, conversion, encoding,
strings, filesystem; collections, formatting, hashing; registry.
"""

"""The built-in functions of the Terraform language, a module per family as terraform's
documentation groups them:

    arguments      what every family does with its arguments (no functions of its own)
    collections    length, concat, merge, keys, lookup, element, flatten, sort, range, ...
    conversion     tobool, tolist, tomap, tonumber, toset, tostring, sensitive, nonsensitive,
                   issensitive, ephemeralasnull
    crypto         base64sha256, base64sha512, filebase64sha..., bcrypt, rsadecrypt, uuid, uuidv5
    encoding       jsonencode, jsondecode, base64..., textencodebase64, urlencode, csvdecode
    filesystem     file, filebase64, fileexists, fileset, abspath, basename, dirname, pathexpand
    formatting     format, formatlist (Go's fmt verbs)
    hashing        md5, sha1, sha256, sha512, filemd5, filesha1, filesha256, filesha512
    lists          compact, slice, reverse, index, chunklist, coalescelist, matchkeys, transpose,
                   alltrue, anytrue
    network        cidrhost, cidrnetmask, cidrsubnet, cidrsubnets
    numeric        abs, ceil, floor, max, min, log, pow, signum, parseint, sum
    regex          regex, regexall (RE2 patterns)
    sets           setunion, setintersection, setsubtract, setproduct
    strings        upper, lower, split, join, replace, substr, trim..., title, strrev, indent, ...
    templates      templatefile, templatestring (rendered by the evaluator: engine.lang.calls)
    timestamps     formatdate, timeadd, timecmp, timestamp, plantimestamp (and the CLOCK)
    yaml_encoding  yamlencode, yamldecode
    registry       FUNCTIONS: every function by name, as the evaluator calls it; PARAMS, signature
    terraform_signatures   terraform 1.11's functions and their parameters: the specification

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

Every function is also callable as ``core::NAME``. The registry refuses a null for a parameter
that takes none and converts an argument to a primitive parameter's type before the call, as cty
does; a failure for one parameter is an :class:`~engine.lang.functions.arguments.ArgumentError`
(terraform's "Invalid function argument"). The functions are checked against terraform's own
answers in ``tests/engine/functions/test_terraform_oracle.py``.

Modules import each other in this order, never back: arguments, terraform_signatures; numeric,
conversion, encoding, strings, filesystem, timestamps, regex, network, sets, lists, yaml_encoding;
collections, formatting, hashing, crypto, templates; registry.
"""

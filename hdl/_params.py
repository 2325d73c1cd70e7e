"""Parameter checks shared by the gateware constructors."""


def refused(component, error):
    """Return ``error`` for ``raise``, after silencing ``component``.

    Amaranth creates an elaboratable before ``__init__`` runs and warns when
    one is collected without being used; a component whose parameters were
    refused never can be, so the warning would only hide the real error.
    """
    component._MustUse__silence = True
    return error

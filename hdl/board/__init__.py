"""The board's gateware: the detector served over a UART.

:mod:`.uart` turns pins into bytes, :mod:`.link` frames and executes the host's
commands, :mod:`.protocol` is the wire format the link and the host share, and
:mod:`.top` puts them together with the detector, at the pins of a platform.
:mod:`.bare_core` is the detector alone with registered pins, which the
benchmark places and routes for its area and clock.
"""

# E722: bare `except:`.


def risky():
    return 1


# Flagged, at the `except` keyword.
try:
    risky()
except:
    pass

try:
    risky()
except ValueError:
    pass
except:  # the bare one of several handlers
    risky()

try:
    risky()
except:
    if risky():
        raise  # a nested re-raise does not count
    risky()

try:
    risky()
except:
    raise ValueError("x")  # raising something else does not count


def nested():
    try:
        return risky()
    except:
        return None


# Not flagged.
try:
    risky()
except Exception:
    pass

try:
    risky()
except:
    risky()
    raise  # a bare re-raise in the handler's own body

try:
    risky()
except BaseException as exc:
    print(exc)

try:
    risky()
except* ValueError:
    pass

#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
seccomp-bpf.py [PROFILE]: write to stdout the container seccomp profile
PROFILE (default: containers-common's, /usr/share/containers/seccomp.json)
with bpf() allowed under CAP_BPF and perf_event_open() under CAP_PERFMON, not
only under CAP_SYS_ADMIN as Debian 12's profile has it (newer profiles,
containerd's and Docker's among them, allow them so already). The agent then
runs with CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN (docs/deploy.md).
"""
import argparse
import json
import sys

GRANTS = {"bpf": "CAP_BPF", "perf_event_open": "CAP_PERFMON"}


def main():
    parser = argparse.ArgumentParser(
        description=" ".join(__doc__.split(": ", 1)[1].split()))
    parser.add_argument("profile", nargs="?", default="/usr/share/containers/seccomp.json",
                        help="the profile to start from (default: %(default)s)")
    path = parser.parse_args().profile
    try:
        with open(path) as f:
            profile = json.load(f)
        rules = profile["syscalls"]
    except OSError as e:
        sys.exit(f"{parser.prog}: cannot read {path}: {e.strerror}; name a container "
                 "seccomp profile")
    except (ValueError, KeyError, TypeError):
        sys.exit(f"{parser.prog}: {path} is not a container seccomp profile (JSON with a "
                 "\"syscalls\" list); name one")
    for rule in rules:
        # The rule that refuses them without CAP_SYS_ADMIN would refuse them under
        # the new rules too: they leave it, and the profile's default refuses them.
        if rule["action"] != "SCMP_ACT_ALLOW":
            rule["names"] = [n for n in rule["names"] if n not in GRANTS]
    # CAP_SYS_ADMIN's rule still allows them too.
    for name, cap in GRANTS.items():
        profile["syscalls"].append({"names": [name], "action": "SCMP_ACT_ALLOW",
                                    "includes": {"caps": [cap]}})
    json.dump(profile, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""daemonset-pod.py: the DaemonSet's pod template as a Pod, as a kubelet makes it, for a
node without a cluster: podman 4.3's `kube play` plays Pods, not DaemonSets. podman
refuses port mappings beside the host's network, so the ports go and the probes name
theirs by number; the pod gets the seccomp profile tools/seccomp-bpf.py writes, as a
localhost one (Debian 12's default refuses bpf() under CAP_BPF). docs/deploy.md has the
podman command that plays it.
"""
import argparse
import sys

import yaml


def pod_of(manifest, iface=None, lock_dir=None, events=False, seccomp="seccomp.json"):
    """The Pod for the DaemonSet of @manifest (its documents, as read)."""
    ds = next(d for d in manifest if d and d.get("kind") == "DaemonSet")
    t = ds["spec"]["template"]
    spec = dict(t["spec"])
    # No cluster, no account to run as: podman plays the pod alone.
    spec.pop("serviceAccountName", None)
    pod = {"apiVersion": "v1", "kind": "Pod", "spec": spec,
           "metadata": dict(t["metadata"], name=ds["metadata"]["name"])}
    c = spec["containers"][0]
    args = c["args"]
    if iface:
        args = [f"--iface={iface}" if a.startswith("--iface=") else a for a in args]
    if events:
        args = [a for a in args if a != "--quiet"]
    c["args"] = args
    ports = {p["name"]: p["containerPort"] for p in c.pop("ports", [])}
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        get = c.get(probe, {}).get("httpGet")
        if get and get["port"] in ports:
            get["port"] = ports[get["port"]]
    pod["metadata"].setdefault("annotations", {})[
        "seccomp.security.alpha.kubernetes.io/pod"] = f"localhost/{seccomp}"
    for v in spec["volumes"]:
        if v["name"] == "locks" and lock_dir:
            v["hostPath"]["path"] = lock_dir
    return pod


def main():
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split(": ", 1)[1].split()))
    parser.add_argument("manifest", nargs="?",
                        default="deploy/kubernetes/fizzbuzzfib-agent.yaml",
                        help="the DaemonSet's manifest (default: %(default)s)")
    parser.add_argument("--iface", help="--iface for the agent, in place of the manifest's")
    parser.add_argument("--lock-dir", help="the node's lock directory, in place of the "
                        "manifest's /run/fizzbuzzfib")
    parser.add_argument("--events", action="store_true",
                        help="events on the container's stdout (drop --quiet)")
    parser.add_argument("--seccomp", default="seccomp.json",
                        help="the profile's file name under podman's --seccomp-profile-root "
                        "(default: %(default)s)")
    a = parser.parse_args()
    try:
        with open(a.manifest) as f:
            manifest = list(yaml.safe_load_all(f))
    except OSError as e:
        sys.exit(f"{parser.prog}: cannot read {a.manifest}: {e.strerror}")
    except yaml.YAMLError as e:
        sys.exit(f"{parser.prog}: {a.manifest} is not YAML: {getattr(e, 'problem', e)}")
    try:
        pod = pod_of(manifest, a.iface, a.lock_dir, a.events, a.seccomp)
    except (StopIteration, KeyError, TypeError, IndexError, AttributeError):
        sys.exit(f"{parser.prog}: {a.manifest} has no DaemonSet with a pod template of one "
                 "container to play")
    yaml.safe_dump(pod, sys.stdout)


if __name__ == "__main__":
    main()

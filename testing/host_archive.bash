# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# host_archive SUITES: the archive the host's own apt sources use for SUITES
# (an extended regular expression of suite names), as apt reads them: a
# local mirror or proxy is the only way some hosts have to Debian's packages.
# For the scripts that fetch from Debian beside the host's apt: the kernels
# of the matrix (testing/vm/fetch-kernels.sh), a fresh root (testing/fresh/).

host_archive()
{
	apt-get indextargets --format '$(RELEASE) $(REPO_URI)' 2>/dev/null |
		awk -v suites="^($1)\$" '$1 ~ suites { print $2; exit }'
}

"""What the cluster's certificate module issues again and what it keeps (module_utils/cluster/pki_plan.py)."""
from ansible_collections.kube_sched_bench.core.plugins.module_utils.cluster import pki_plan as pki

CAS = [{"name": "ca", "cn": "c"}, {"name": "etcd-ca", "cn": "e"}]
CERTS = pki.normalized(CAS, [{"name": "api", "cn": "kube-apiserver", "usage": "serverAuth", "san": ["DNS:b", "IP:1.2.3.4"]},
                             {"name": "etcd", "cn": "etcd", "ca": "etcd-ca", "usage": ["serverAuth", "clientAuth"]},
                             {"name": "admin", "cn": "a", "org": "system:masters"}])


def good():
    """Everything on disk as the specs ask."""
    found = {"ca": {"key": True, "cert": {"cn": "c", "org": "", "sans": [], "usage": [], "issuer": "c"}},
             "etcd-ca": {"key": True, "cert": {"cn": "e", "org": "", "sans": [], "usage": [], "issuer": "e"}},
             "sa": {"key": True, "cert": None},
             "api": {"key": True, "cert": {"cn": "kube-apiserver", "org": "", "sans": ["DNS:b", "IP:1.2.3.4"],
                                           "usage": ["serverAuth"], "issuer": "c"}},
             "etcd": {"key": True, "cert": {"cn": "etcd", "org": "", "sans": [], "usage": ["clientAuth", "serverAuth"],
                                            "issuer": "e"}},
             "admin": {"key": True, "cert": {"cn": "a", "org": "system:masters", "sans": [], "usage": ["clientAuth"],
                                             "issuer": "c"}}}
    for entry in found.values():
        if entry["cert"]:
            entry["cert"].update(key_matches=True, days_left=300)
    return found


def test_defaults_are_filled_in():
    assert [(cert["ca"], cert["usage"], cert["org"]) for cert in CERTS] == [
        ("ca", ["serverAuth"], ""), ("etcd-ca", ["serverAuth", "clientAuth"], ""), ("ca", ["clientAuth"], "system:masters")]


def test_nothing_on_disk_makes_every_key_and_certificate():
    assert pki.plan(CAS, ["sa"], CERTS, {}, 1) == (["ca", "etcd-ca", "sa", "api", "etcd", "admin"],
                                                   ["ca", "etcd-ca", "api", "etcd", "admin"])


def test_everything_as_asked_is_kept():
    assert pki.plan(CAS, ["sa"], CERTS, good(), 1) == ([], [])


def test_a_ca_issued_again_takes_its_certificates_along_and_only_those():
    found = good()
    found["etcd-ca"]["cert"]["days_left"] = 0
    assert pki.plan(CAS, ["sa"], CERTS, found, 1) == ([], ["etcd-ca", "etcd"])


def test_a_certificate_that_says_something_else_or_is_not_for_its_key_is_issued_again():
    found = good()
    found["api"]["cert"]["sans"] = ["DNS:b"]
    found["admin"]["cert"]["key_matches"] = False
    assert pki.plan(CAS, ["sa"], CERTS, found, 1) == ([], ["api", "admin"])


def test_a_missing_key_is_made_and_its_certificate_issued():
    found = good()
    found["admin"] = {"key": False, "cert": None}
    found["sa"] = {"key": False, "cert": None}
    assert pki.plan(CAS, ["sa"], CERTS, found, 1) == (["sa", "admin"], ["admin"])


def test_bad_specs_are_named():
    assert pki.spec_problems(CAS, ["sa"], CERTS) == []
    assert pki.spec_problems(CAS, ["ca"], CERTS) == ["names must be unique across cas, keys and certs: "
                                                     "ca, etcd-ca, ca, api, etcd, admin"]
    (problem,) = pki.spec_problems(CAS, [], [dict(CERTS[0], ca="nope")])
    assert problem.startswith("certificate api: ca must be one of ['ca', 'etcd-ca']")
    (problem,) = pki.spec_problems(CAS, [], [dict(CERTS[0], usage=["codeSigning"])])
    assert problem == "certificate api: usage must be a non-empty list of serverAuth, clientAuth"
    (problem,) = pki.spec_problems(CAS, [], [dict(CERTS[0], san=["URI:x"])])
    assert problem == "certificate api: each san must start with IP: or DNS:, not ['URI:x']"

//! Where a client looks for the metadata, judged fetch by fetch: the
//! Protected Resource Metadata (2025-06-18 on) and the authorization server
//! metadata, each in the version's order (the engine's
//! [`mcpspec_engine::oauth::discovery`]), and both fetched before the client
//! goes to the authorization server's endpoints.
//!
//! A search tries the URLs of the order in turn until one serves the
//! document; the next search (a second authorization) starts over, or the
//! client goes on down the order (it refused the document it got). The
//! first fetch that leaves the order is reported, once per kind of
//! metadata: after it the client is off the script's map.

use mcpspec_engine::oauth::discovery::{
    authorization_server_metadata_urls, protected_resource_metadata_urls,
};
use mcpspec_engine::{ids, Requirement, Version};

use super::{AuthEndpoint, AuthScript, Found};

/// One kind of metadata: the order and how far the client got in it.
#[derive(Debug, Default)]
struct Search {
    /// The URLs in the version's order; empty when there is none to judge.
    order: Vec<String>,
    /// The position the next fetch must take.
    next: usize,
    fetches: usize,
    /// A document was served.
    found: bool,
    /// The last fetch was served: a new search may start.
    restart: bool,
    /// The order was broken (reported once).
    broken: bool,
}

impl Search {
    fn new(order: Vec<String>) -> Search {
        Search {
            order,
            ..Search::default()
        }
    }

    /// One fetch of `url`: why it breaks the order, the first time one does.
    /// After a served document the client may start a new search, or go on
    /// to the next URL (it refused the document: an issuer that differs).
    fn fetch(&mut self, what: &str, url: &str, served: bool) -> Option<String> {
        self.fetches += 1;
        let n = self.fetches;
        let is = |i: usize| self.order.get(i).map(String::as_str) == Some(url);
        let at = if is(self.next) {
            Some(self.next)
        } else if self.restart && is(0) {
            Some(0)
        } else {
            None
        };
        let want = self.order.get(self.next).cloned();
        self.next = at.unwrap_or(self.next) + 1;
        self.restart = served;
        self.found |= served;
        if self.order.is_empty() || self.broken || at.is_some() {
            return None;
        }
        self.broken = true;
        let all = self.order.join(", ");
        Some(match want {
            Some(want) => format!(
                "{what} request {n} went to {url}; the version's order has {want} there (order: {all})"
            ),
            None => format!("{what} request {n} went to {url}, beyond the version's order ({all})"),
        })
    }
}

/// The discovery of one case.
#[derive(Debug, Default)]
pub(super) struct State {
    /// The URL the 401 named, judged against the first PRM fetch.
    challenge: Option<String>,
    prm: Search,
    asm: Search,
    /// The client reached the authorization server's endpoints without
    /// PRM (`.0`) or AS metadata (`.1`): reported once each.
    skipped: (bool, bool),
}

const PRM: &str = "Protected Resource Metadata";
const ASM: &str = "authorization server metadata";

impl State {
    pub(super) fn new(version: Version, script: &AuthScript) -> State {
        // An order the engine cannot build (a malformed URL of the
        // harness's own) is left unjudged rather than judged wrong.
        let prm = protected_resource_metadata_urls(
            version,
            &script.server_url,
            script.resource_metadata.as_deref(),
        )
        .unwrap_or_default();
        let asm = authorization_server_metadata_urls(version, &script.issuer)
            .map(|urls| urls.into_iter().map(|u| u.url).collect())
            .unwrap_or_default();
        State {
            challenge: script.resource_metadata.clone(),
            prm: Search::new(prm),
            asm: Search::new(asm),
            skipped: (false, false),
        }
    }

    /// The Protected Resource Metadata now names `issuer`, another
    /// authorization server: its metadata is sought afresh, in the version's
    /// order for it.
    pub(super) fn migrate(&mut self, version: Version, issuer: &str) {
        let asm = authorization_server_metadata_urls(version, issuer)
            .map(|urls| urls.into_iter().map(|u| u.url).collect())
            .unwrap_or_default();
        self.asm = Search::new(asm);
    }

    pub(super) fn prm_fetch(&mut self, version: Version, url: &str, served: bool) -> Vec<Found> {
        let mut out: Vec<Found> = Vec::new();
        if self.prm.fetches == 0 {
            if let Some(named) = self.challenge.as_deref().filter(|n| *n != url) {
                out.push((
                    &ids::AUTH_WWW_AUTHENTICATE_PARSE,
                    format!(
                        "the first {PRM} request went to {url}, not to {named}, which the 401's resource_metadata named"
                    ),
                ));
            }
        }
        if let Some(detail) = self.prm.fetch(PRM, url, served) {
            let id = if ids::AUTH_PRM_DISCOVERY_ORDER.applies_to(version) {
                &ids::AUTH_PRM_DISCOVERY_ORDER
            } else {
                &ids::AUTH_PRM_CLIENT_DISCOVERY
            };
            out.push((id, detail));
        }
        out
    }

    pub(super) fn as_fetch(&mut self, version: Version, url: &str, served: bool) -> Vec<Found> {
        let id: &'static Requirement = if ids::AUTH_AS_METADATA_DISCOVERY_ORDER.applies_to(version)
        {
            &ids::AUTH_AS_METADATA_DISCOVERY_ORDER
        } else if ids::AUTH_LEGACY_METADATA_FIRST.applies_to(version) {
            &ids::AUTH_LEGACY_METADATA_FIRST
        } else {
            &ids::AUTH_AS_METADATA_CLIENT
        };
        self.asm
            .fetch(ASM, url, served)
            .map(|detail| (id, detail))
            .into_iter()
            .collect()
    }

    /// The client reached `endpoint` of the authorization server: it must
    /// have found both documents first (the script serves them).
    pub(super) fn before_endpoints(
        &mut self,
        version: Version,
        endpoint: AuthEndpoint,
    ) -> Vec<Found> {
        let mut out: Vec<Found> = Vec::new();
        let reached = match endpoint {
            AuthEndpoint::Registration => "the registration endpoint",
            AuthEndpoint::Authorization => "the authorization endpoint",
            _ => "the token endpoint",
        };
        if !self.prm.found && !self.skipped.0 && version >= Version::V2025_06_18 {
            self.skipped.0 = true;
            out.push((
                &ids::AUTH_PRM_CLIENT_DISCOVERY,
                format!("the client went to {reached} without having fetched the server's {PRM}"),
            ));
        }
        if !self.asm.found && !self.skipped.1 {
            self.skipped.1 = true;
            let detail =
                format!("the client went to {reached} without having fetched the {ASM}, which the script serves");
            out.push((&ids::AUTH_AS_METADATA_CLIENT, detail.clone()));
            out.push((&ids::AUTH_LEGACY_METADATA_FIRST, detail));
        }
        out
    }
}

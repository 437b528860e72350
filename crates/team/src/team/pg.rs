//! A blocking PostgreSQL client with a deadline on every step: connecting, authenticating and
//! each statement must finish within `[team] timeout_secs`, or the step fails with one line and
//! the connection is dropped. A server that accepts the connection and never answers, or one
//! frozen mid-statement, costs at most the deadline. The server is also asked to cancel any
//! statement running longer (`statement_timeout`), so an abandoned one does not hold locks.

use std::future::Future;
use std::time::Duration;

use anyhow::{Result, anyhow, bail};
use tokio::runtime::Runtime;
use tokio_postgres::config::Host;
use tokio_postgres::types::ToSql;
use tokio_postgres::{NoTls, Portal, Row};

/// Statement parameters, as `tokio_postgres` takes them.
pub type Params<'a> = &'a [&'a (dyn ToSql + Sync)];

/// A connection to the team's server.
pub struct Client {
    rt: Runtime,
    client: tokio_postgres::Client,
    deadline: Duration,
    /// A step ran out of time: what the connection holds is unknown, so it is not used again.
    broken: bool,
    server: String,
}

fn late(server: &str, deadline: Duration) -> anyhow::Error {
    anyhow!(
        "team server did not answer within {} s ({server}); set [team] timeout_secs to wait longer",
        deadline.as_secs_f64()
    )
}

/// Runs one step on `rt` within `deadline`.
fn within<T>(
    rt: &Runtime,
    deadline: Duration,
    server: &str,
    step: impl Future<Output = std::result::Result<T, tokio_postgres::Error>>,
) -> Result<T> {
    match rt.block_on(async { tokio::time::timeout(deadline, step).await }) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(e.into()),
        Err(_) => Err(late(server, deadline)),
    }
}

impl Client {
    /// Connects and authenticates within `deadline`; each later statement gets the same.
    pub fn connect(url: &str, deadline: Duration) -> Result<Client> {
        let server = describe(url);
        let mut config: tokio_postgres::Config = url
            .parse()
            .map_err(|e| anyhow!("team.url is not a PostgreSQL connection string: {e}"))?;
        config.connect_timeout(deadline);
        let ms = deadline.as_millis();
        let options = match config.get_options() {
            Some(o) => format!("{o} -c statement_timeout={ms}"),
            None => format!("-c statement_timeout={ms}"),
        };
        config.options(&options);
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        let connected =
            rt.block_on(async { tokio::time::timeout(deadline, config.connect(NoTls)).await });
        let (client, connection) = match connected {
            Ok(Ok(pair)) => pair,
            Ok(Err(e)) => bail!("team server unreachable ({server}): {}", one_line(&e)),
            Err(_) => bail!(
                "team server unreachable ({server}): no answer within {} s",
                deadline.as_secs_f64()
            ),
        };
        rt.spawn(async move {
            // Its error reaches the caller through the next statement.
            let _ = connection.await;
        });
        Ok(Client { rt, client, deadline, broken: false, server })
    }

    pub fn execute(&mut self, sql: &str, params: Params) -> Result<u64> {
        let f = self.client.execute(sql, params);
        Self::guard(&self.rt, self.deadline, &self.server, &mut self.broken, f)
    }

    pub fn query(&mut self, sql: &str, params: Params) -> Result<Vec<Row>> {
        let f = self.client.query(sql, params);
        Self::guard(&self.rt, self.deadline, &self.server, &mut self.broken, f)
    }

    pub fn query_one(&mut self, sql: &str, params: Params) -> Result<Row> {
        let f = self.client.query_one(sql, params);
        Self::guard(&self.rt, self.deadline, &self.server, &mut self.broken, f)
    }

    pub fn query_opt(&mut self, sql: &str, params: Params) -> Result<Option<Row>> {
        let f = self.client.query_opt(sql, params);
        Self::guard(&self.rt, self.deadline, &self.server, &mut self.broken, f)
    }

    pub fn batch_execute(&mut self, sql: &str) -> Result<()> {
        let f = self.client.batch_execute(sql);
        Self::guard(&self.rt, self.deadline, &self.server, &mut self.broken, f)
    }

    /// Opens a transaction; dropped without `commit`, it rolls back.
    pub fn transaction(&mut self) -> Result<Tx<'_>> {
        let Client { rt, client, deadline, broken, server } = self;
        let tx = Self::guard(rt, *deadline, server, broken, client.transaction())?;
        Ok(Tx { rt, tx, deadline: *deadline, server, broken })
    }

    fn guard<T>(
        rt: &Runtime,
        deadline: Duration,
        server: &str,
        broken: &mut bool,
        step: impl Future<Output = std::result::Result<T, tokio_postgres::Error>>,
    ) -> Result<T> {
        if *broken {
            bail!("team server connection was dropped after a step ran out of time");
        }
        let r = within(rt, deadline, server, step);
        if r.as_ref().is_err_and(|e| e.downcast_ref::<tokio_postgres::Error>().is_none()) {
            *broken = true;
        }
        r
    }
}

/// A transaction on the team's server, each statement under the client's deadline.
pub struct Tx<'a> {
    rt: &'a Runtime,
    tx: tokio_postgres::Transaction<'a>,
    deadline: Duration,
    server: &'a str,
    broken: &'a mut bool,
}

impl Tx<'_> {
    pub fn execute(&mut self, sql: &str, params: Params) -> Result<u64> {
        let (rt, d, s) = (self.rt, self.deadline, self.server);
        Client::guard(rt, d, s, self.broken, self.tx.execute(sql, params))
    }

    pub fn query(&mut self, sql: &str, params: Params) -> Result<Vec<Row>> {
        let (rt, d, s) = (self.rt, self.deadline, self.server);
        Client::guard(rt, d, s, self.broken, self.tx.query(sql, params))
    }

    pub fn query_one(&mut self, sql: &str, params: Params) -> Result<Row> {
        let (rt, d, s) = (self.rt, self.deadline, self.server);
        Client::guard(rt, d, s, self.broken, self.tx.query_one(sql, params))
    }

    pub fn query_opt(&mut self, sql: &str, params: Params) -> Result<Option<Row>> {
        let (rt, d, s) = (self.rt, self.deadline, self.server);
        Client::guard(rt, d, s, self.broken, self.tx.query_opt(sql, params))
    }

    pub fn batch_execute(&mut self, sql: &str) -> Result<()> {
        let (rt, d, s) = (self.rt, self.deadline, self.server);
        Client::guard(rt, d, s, self.broken, self.tx.batch_execute(sql))
    }

    pub fn bind(&mut self, sql: &str, params: Params) -> Result<Portal> {
        let (rt, d, s) = (self.rt, self.deadline, self.server);
        Client::guard(rt, d, s, self.broken, self.tx.bind(sql, params))
    }

    pub fn query_portal(&mut self, portal: &Portal, rows: i32) -> Result<Vec<Row>> {
        let (rt, d, s) = (self.rt, self.deadline, self.server);
        Client::guard(rt, d, s, self.broken, self.tx.query_portal(portal, rows))
    }

    pub fn commit(self) -> Result<()> {
        let Tx { rt, tx, deadline, server, broken } = self;
        Client::guard(rt, deadline, server, broken, tx.commit())
    }

    pub fn rollback(self) -> Result<()> {
        let Tx { rt, tx, deadline, server, broken } = self;
        Client::guard(rt, deadline, server, broken, tx.rollback())
    }
}

/// An error and its causes on one line.
pub fn one_line(e: &tokio_postgres::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let more = s.to_string();
        if !text.contains(&more) {
            text = format!("{text}: {more}");
        }
        source = s.source();
    }
    text.replace('\n', " ")
}

/// Where the server is, without a password: `host /tmp/pg, database team`.
pub fn describe(url: &str) -> String {
    let Ok(config) = url.parse::<tokio_postgres::Config>() else {
        return "(unparsable team.url)".into();
    };
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .map(|h| match h {
            Host::Tcp(name) => name.clone(),
            Host::Unix(path) => path.display().to_string(),
        })
        .collect();
    let host = if hosts.is_empty() { "localhost".to_string() } else { hosts.join(",") };
    format!("host {host}, database {}", config.get_dbname().or(config.get_user()).unwrap_or("?"))
}

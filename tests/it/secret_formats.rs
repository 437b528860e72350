//! Secret formats for the recall tests: each a made-up value in the shape its provider issues
//! (none is a real credential), inside the text a person or an agent would write around it.

/// (format, the secret, a command or sentence that carries it).
pub const FORMATS: &[(&str, &str, &str)] = &[
    (
        "github classic",
        "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngXyZ12345",
        "git push https://x:ghp_R4nd0mT0k3nV4lu3F0rT3st1ngXyZ12345@github.com/o/r",
    ),
    (
        "github oauth",
        "gho_16C7e42F292c6912E7710c838347Ae178B4a",
        "GH_TOKEN gho_16C7e42F292c6912E7710c838347Ae178B4a",
    ),
    (
        "github fine-grained",
        "github_pat_11ABCDEFG0aBcDeFgHiJkL_mNoPqRsTuVwXyZ0123456789",
        "gh auth login --with-token github_pat_11ABCDEFG0aBcDeFgHiJkL_mNoPqRsTuVwXyZ0123456789",
    ),
    (
        "gitlab personal",
        "glpat-x8Kq2LmN4pR7sT9vW1yZ",
        "curl --header \"PRIVATE-TOKEN: glpat-x8Kq2LmN4pR7sT9vW1yZ\" https://gitlab.com/api/v4/projects",
    ),
    (
        "anthropic",
        "sk-ant-api03-Xk9mQ2vL7pR4tW8nY3bZ6cF1hJ5",
        "ANTHROPIC_API_KEY is sk-ant-api03-Xk9mQ2vL7pR4tW8nY3bZ6cF1hJ5",
    ),
    (
        "openai project",
        "sk-proj-Ab3dEf9hIj2LmN0pQr5tUv7xYz1",
        "use sk-proj-Ab3dEf9hIj2LmN0pQr5tUv7xYz1 for the calls",
    ),
    (
        "aws access key id",
        "AKIAQX4Z7N2B6R5M3K8P",
        "aws configure set aws_access_key_id AKIAQX4Z7N2B6R5M3K8P",
    ),
    (
        "aws secret in env",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY",
        "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY aws s3 ls",
    ),
    (
        "slack bot",
        "xoxb-2048-4096-Qz8Lm3Kp9Rt2Vw7Yx4Nb",
        "SLACK xoxb-2048-4096-Qz8Lm3Kp9Rt2Vw7Yx4Nb",
    ),
    (
        "slack app-level",
        "xapp-1-A0123BCDEFG-1234567890123-4f1e3c2b9a8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f",
        "socket mode with xapp-1-A0123BCDEFG-1234567890123-4f1e3c2b9a8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f",
    ),
    (
        "slack webhook",
        "T0ABCDEFG/B0HIJKLMN/q8Wz3Lk5Rm7Tp2Vx9Yn4Bc6D",
        "curl -X POST https://hooks.slack.com/services/T0ABCDEFG/B0HIJKLMN/q8Wz3Lk5Rm7Tp2Vx9Yn4Bc6D -d '{}'",
    ),
    (
        "discord webhook",
        "123456789012345678/Zq9x-Lm3Kp8Rt2Vw7Yx4Nb6Dc1Fg5Hj0Jk3Lm8Np2Qr7St4Uv9Wx",
        "curl https://discord.com/api/webhooks/123456789012345678/Zq9x-Lm3Kp8Rt2Vw7Yx4Nb6Dc1Fg5Hj0Jk3Lm8Np2Qr7St4Uv9Wx -d x",
    ),
    (
        "stripe live",
        "sk_live_51Hq8ZpLm3Kp9Rt2Vw7Yx4Nb6Dc",
        "stripe charges list --api-key sk_live_51Hq8ZpLm3Kp9Rt2Vw7Yx4Nb6Dc",
    ),
    (
        "stripe bare",
        "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
        "the key sk_live_4eC39HqLyjWDarjtT1zdp7dc goes in prod",
    ),
    (
        "stripe restricted",
        "rk_live_51Hq8ZpLm3Kp9Rt2Vw7Yx4Nb6Dc",
        "rk_live_51Hq8ZpLm3Kp9Rt2Vw7Yx4Nb6Dc",
    ),
    (
        "stripe webhook",
        "whsec_Lm3Kp9Rt2Vw7Yx4Nb6Dc1Fg5Hj0Jk3",
        "STRIPE_WEBHOOK whsec_Lm3Kp9Rt2Vw7Yx4Nb6Dc1Fg5Hj0Jk3",
    ),
    (
        "google api key",
        "AIzaSyD4x8Kq2LmN4pR7sT9vW1yZ3bC5dE7fG9h",
        "curl 'https://maps.googleapis.com/maps/api/geocode/json?address=x&key=AIzaSyD4x8Kq2LmN4pR7sT9vW1yZ3bC5dE7fG9h'",
    ),
    (
        "google oauth secret",
        "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",
        "client secret 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",
    ),
    (
        "npm",
        "npm_Lm3Kp9Rt2Vw7Yx4Nb6Dc1Fg5Hj0Jk3Lm8NpQr",
        "echo //registry.npmjs.org/:_authToken npm_Lm3Kp9Rt2Vw7Yx4Nb6Dc1Fg5Hj0Jk3Lm8NpQr > .npmrc",
    ),
    (
        "pypi",
        "pypi-AgEIcHlwaS5vcmcCJDk2YmQ3ZjE0LTk5ZjMtNGE1Ni1hYjQ3LTY4ZDU1NGE4MjE0OAACKlszLCJhYmMiXQ",
        "twine upload -p pypi-AgEIcHlwaS5vcmcCJDk2YmQ3ZjE0LTk5ZjMtNGE1Ni1hYjQ3LTY4ZDU1NGE4MjE0OAACKlszLCJhYmMiXQ dist/*",
    ),
    (
        "hugging face",
        "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",
        "huggingface-cli login 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",
    ),
    (
        "sendgrid",
        "SG.Lm3Kp9Rt2Vw7Yx4Nb6Dc1F.g5Hj0Jk3Lm8Np2Qr7St4Uv9Wx1Yz6Ab3Cd8Ef5Gh0Ij2Kl",
        "SENDGRID SG.Lm3Kp9Rt2Vw7Yx4Nb6Dc1F.g5Hj0Jk3Lm8Np2Qr7St4Uv9Wx1Yz6Ab3Cd8Ef5Gh0Ij2Kl",
    ),
    (
        "twilio api key",
        "SK0123456789abcdef0123456789abcdef",
        "twilio api:core:messages:create --api-key SK0123456789abcdef0123456789abcdef",
    ),
    (
        "azure storage",
        "Xk9mQ2vL7pR4tW8nY3bZ6cF1hJ5sD0gA2eU4iO6yT8rE1wQ3zX5cV7bN9mL0kJ2hG4fD6sA8pO0iU2yT4rE6wQ8==",
        "az storage blob list --connection-string 'DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Xk9mQ2vL7pR4tW8nY3bZ6cF1hJ5sD0gA2eU4iO6yT8rE1wQ3zX5cV7bN9mL0kJ2hG4fD6sA8pO0iU2yT4rE6wQ8==;EndpointSuffix=core.windows.net'",
    ),
    (
        "azure ad client secret",
        "abc8Q~Lm3Kp9Rt2Vw7Yx4Nb6Dc1Fg5Hj0Jk3Lm8",
        "AZURE_CLIENT secret abc8Q~Lm3Kp9Rt2Vw7Yx4Nb6Dc1Fg5Hj0Jk3Lm8",
    ),
    ("mysql -p", "Hunt3r2Pass", "mysql -u root -pHunt3r2Pass -h db.local app"),
    ("sshpass -p", "S3cretSsh!", "sshpass -p S3cretSsh! ssh deploy@host uptime"),
    (
        "x-api-key header",
        "c3Vw3rS3cr3tK3yV4lu3",
        "curl -H 'X-Api-Key: c3Vw3rS3cr3tK3yV4lu3' https://api.example.com/v1/items",
    ),
    (
        "bearer header",
        "aB3dEf9hIj2LmN0pQr5tUv7x",
        "curl -H 'Authorization: Bearer aB3dEf9hIj2LmN0pQr5tUv7x' https://api.example.com",
    ),
    ("url password", "Pg5ecretW0rd", "psql postgres://admin:Pg5ecretW0rd@db.internal:5432/app"),
    ("--password flag", "Sup3rS3cret", "docker login --password Sup3rS3cret registry.example.com"),
    ("json password", "Tr0ub4dor&3", "{\"user\": \"ops\", \"password\": \"Tr0ub4dor&3\"}"),
    ("password in prose", "correct-Horse-9", "the password is correct-Horse-9 for the staging box"),
    ("password for in prose", "Bl4ckB1rd!", "the db password for staging is Bl4ckB1rd!"),
    (
        "jwt",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "cookie session=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ),
    (
        "long hex positional",
        "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "./deploy.sh prod 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    ),
    (
        "long base64 positional",
        "Qm9vdHN0cmFwVDBrM25YeVo5OHdQcUxtTjJ2QjdjRDRlRjFnSDZqSzNs",
        "./register-runner --url https://ci.example.com Qm9vdHN0cmFwVDBrM25YeVo5OHdQcUxtTjJ2QjdjRDRlRjFnSDZqSzNs",
    ),
    (
        "digitalocean",
        "dop_v1_4f1e3c2b9a8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f",
        "doctl auth init -t dop_v1_4f1e3c2b9a8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f",
    ),
    (
        "shopify",
        "shpat_0123456789abcdef0123456789abcdef",
        "SHOPIFY shpat_0123456789abcdef0123456789abcdef",
    ),
    (
        "linear",
        "lin_api_Lm3Kp9Rt2Vw7Yx4Nb6Dc1Fg5Hj0Jk3Lm8Np2Qr7St",
        "LINEAR lin_api_Lm3Kp9Rt2Vw7Yx4Nb6Dc1Fg5Hj0Jk3Lm8Np2Qr7St",
    ),
    (
        "vault",
        "hvs.CAESIJlm3Kp9Rt2Vw7Yx4Nb6Dc1Fg5Hj0Jk3Lm8Np2Qr7St4Uv9",
        "vault login hvs.CAESIJlm3Kp9Rt2Vw7Yx4Nb6Dc1Fg5Hj0Jk3Lm8Np2Qr7St4Uv9",
    ),
    (
        "docker hub",
        "dckr_pat_Lm3Kp9Rt2Vw7Yx4Nb6Dc1Fg5Hj0J",
        "docker login -u me --password-stdin <<< dckr_pat_Lm3Kp9Rt2Vw7Yx4Nb6Dc1Fg5Hj0J",
    ),
    (
        "telegram bot",
        "1234567890:AAHq8ZpLm3Kp9Rt2Vw7Yx4Nb6Dc1Fg5Hj0J",
        "curl https://api.telegram.org/bot1234567890:AAHq8ZpLm3Kp9Rt2Vw7Yx4Nb6Dc1Fg5Hj0J/getMe",
    ),
    (
        "age secret key",
        "AGE-SECRET-KEY-1QQPZRY9X8GF2TVDW0S3JN54KHCE6MUA7LQQPZRY9X8GF2TVDW0S3JN54KH",
        "AGE-SECRET-KEY-1QQPZRY9X8GF2TVDW0S3JN54KHCE6MUA7LQQPZRY9X8GF2TVDW0S3JN54KH",
    ),
    (
        "dotenv dump",
        "dUmPv4lu3S3cr3t",
        "DATABASE_HOST=db\nDATABASE_USER=app\nDATABASE_PASS=dUmPv4lu3S3cr3t\n",
    ),
    (
        "aws configure secret",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY",
        "aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY",
    ),
    (
        "docker login -p",
        "Dk9!rPass2024",
        "docker login -u deploy -p Dk9!rPass2024 registry.example.com",
    ),
    ("redis-cli -a", "r3dis-S3cret!", "redis-cli -h cache.internal -a r3dis-S3cret! ping"),
    (
        "redis url no user",
        "Rp4ssW0rd2024",
        "REDIS_URL=redis://:Rp4ssW0rd2024@cache.internal:6379/0",
    ),
    (
        "netrc line",
        "n3trcP4ssw0rd",
        "echo 'machine api.example.com login deploy password n3trcP4ssw0rd' >> ~/.netrc",
    ),
    (
        "pgpass line",
        "pgP4ss-2024x",
        "echo 'db.internal:5432:app:appuser:pgP4ss-2024x' > ~/.pgpass && chmod 600 ~/.pgpass",
    ),
    (
        "alibaba access key id",
        "LTAI5tQx8Rk2Lm9Np3Vw7Yz4",
        "aliyun configure --access-key-id LTAI5tQx8Rk2Lm9Np3Vw7Yz4",
    ),
    (
        "sentry dsn",
        "3f2b9c1e5a7d8f0a2c4e6b8d0f1a3c5e",
        "SENTRY_DSN=https://3f2b9c1e5a7d8f0a2c4e6b8d0f1a3c5e@o450123.ingest.sentry.io/5523456 npm start",
    ),
    (
        "telegram bot url",
        "7712345678:AAEkq8ZpLm3Kp9Rt2Vw7Yx4Nb6Dc1Fg5Hj0",
        "curl -s https://api.telegram.org/bot7712345678:AAEkq8ZpLm3Kp9Rt2Vw7Yx4Nb6Dc1Fg5Hj0/sendMessage",
    ),
    (
        "discord bot token",
        "MTE5ODc2NTQzMjEwOTg3NjU0Mw.GhJkLm.Xq9Rt2Vw7Yx4Nb6Dc1Fg5Hj0Jk3Lm8Np2Q",
        "the bot token is MTE5ODc2NTQzMjEwOTg3NjU0Mw.GhJkLm.Xq9Rt2Vw7Yx4Nb6Dc1Fg5Hj0Jk3Lm8Np2Q, start it",
    ),
    (
        "new relic user key",
        "NRAK-7QX4Z2N8B6R5M3K9P1L0W4Y8T2V",
        "export NEW_RELIC_API_KEY NRAK-7QX4Z2N8B6R5M3K9P1L0W4Y8T2V",
    ),
    ("positional password", "Adm1n!Pass", "./login.sh admin Adm1n!Pass"),
    (
        "private key (PEM)",
        "MIIEowIBAAKCAQEAq3GAy2IH8nEkU3T",
        "echo -----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAq3GAy2IH8nEkU3T\nV3hRvL8z9xFNmJb0C2qQm0wKNwAAAJ\n-----END RSA PRIVATE KEY----- > id_rsa",
    ),
];

/// Text from real sessions that no rule may touch: commands and phrases a draft needs.
pub const CLEAN: &[&str] = &[
    "mix test",
    "cargo clippy --all-targets -- -D warnings",
    "git push --set-upstream origin feature/login",
    "git checkout 3f2a9c1e5b7d8f0a2c4e6b8d0f1a3c5e7b9d1f3a",
    "docker pull node@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "the password is wrong",
    "the password reset flow is broken",
    "mysql -u root -p app",
    "export TOKEN=$GITHUB_TOKEN",
    "MAX_TOKENS=4096",
    "pip install scikit-learn",
    "cargo test --test it reliab_crash::",
    "SomeVeryLongIdentifierNameForTheUserAuthenticationFlow2024",
    "src/providers/plugins/sso/proxy/pluginHandlerFactory2.ts",
    "why is trace id 4bf92f3577b34da6a3ce929d0e0e4736 slow in Jaeger?",
    "the request had traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    "Error: Failed to find Server Action \"7f9e1c3a5b7d9f1e3a5c7e9b1d3f5a7c9e1b3d5f7a\". This request might be from an older deployment.",
    "Next-Action: 00a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e",
    "the ETag header came back as \"5d41402abc4b2a76b9719d911017c592\" both times",
    "./login.sh --help",
    "gh auth login --web",
    "npm run connect staging eu-west-1",
    "ssh-connect deploy@web1 uptime",
];

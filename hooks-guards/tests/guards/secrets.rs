//! `secrets` against a corpus of realistic texts: what it must find (vendor keys, bearer tokens,
//! PEM and hex private keys, seed phrases, in the places they turn up: env files, curl commands,
//! JSON, logs) and what it must let through (commit hashes, UUIDs, checksums, base64 images,
//! public keys, placeholders, code identifiers, prose). Prints the corpus sizes and the false
//! positives and negatives. The keys are random strings in each vendor's format, none real.

use hookchain_core::ToolCall;
use hookchain_core::points::{Outbound, ToolResult};
use hookchain_guards::BuiltinsExt;
use hookchain_guards::secrets::{Action, Secrets};
use hookchain_runtime::HooksBuilder;
use serde_json::json;

/// (the kind it must find, the text).
const FIND: &[(&str, &str)] = &[
    (
        "anthropic key",
        "here is my key sk-ant-api03-575yx8xm5MslfY5ubiheyEd7P4zDL-ak6J0kGODKdinZnLXicaBAg8WY1jzIRlNQb0prFmbh7_wy5yq1XoY1BaIMcAxYmAA please use it",
    ),
    (
        "anthropic key",
        "ANTHROPIC_API_KEY=sk-ant-api03-cjnCqaXNv1syeefnLOpaMxxNDi9LE1Ki3ylOjt6o0NpUmkVO8JmR8y4EMfAdggcG9qpVTzqA05MFsHl7",
    ),
    (
        "anthropic key",
        "{\"api_key\": \"sk-ant-admin01-UeioEJP2NNern66nVberACpdclsxHKifxi5CvQUSHL8iLc7bE6wSt9cbMOeE\"}",
    ),
    (
        "openai key",
        "OPENAI_API_KEY=sk-proj-iNOrjj5VfqRTk8j1d-bWWbjkloG1QX647kdNl9cDo-_GbVMszvR4-EPZGz3zBXCOArr-SfiJvo58JB0W-O5PjeJfJTNcrZ6ydIEsgo5nVjzz8Gwb8ewCISuY",
    ),
    (
        "openai key",
        "client = OpenAI(api_key=\"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\")",
    ),
    (
        "openai key",
        "sk-svcacct-pBFXlNPHcSke4R1J_dBi2ewQr8t4-lC4LvGNWAMsI-z0oaWdfZp_lvi60ZIF",
    ),
    (
        "openai key",
        "use sk-admin-EFivB50756EHugmANb7qiSXbcmjoaRsuUwpNFgFULh2GNqTmSH for the org",
    ),
    (
        "openai key",
        "export OPENAI_KEY='sk-4BbyOA0HNkIn3OIOnHn2INL2io6VOZw5luMu57mnXm4gi4pi'",
    ),
    (
        "github token",
        "git clone https://ghp_UfqygB18AIYTimzORZbgmKRw609xhTGOWvGR@github.com/acme/app.git",
    ),
    (
        "github token",
        "GITHUB_TOKEN=gho_1mZeEgbcWJNG5KEjmlhnl1ks7RgLdi8RDeWg",
    ),
    (
        "github token",
        "token: ghs_uzDBGwBnMxaOSc2mlADxVxz6mMkgGYau5fZ1",
    ),
    ("github token", "ghu_T436O8zKMmGLvZWqr6hVVXk07zi5v4ISxXBW"),
    (
        "github token",
        "my PAT is 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",
    ),
    ("gitlab token", "PRIVATE-TOKEN: glpat-MQW9cy78kyEk2FINMdB8"),
    (
        "gitlab token",
        "TRIGGER_TOKEN=glptt-5df6eaf8f08c1f1e9eb38cb93498381363550666",
    ),
    (
        "slack token",
        "SLACK_BOT_TOKEN=xoxb-451948764364-976489026864-5oBUEqWpcHg7ZU6Dj90pMThd",
    ),
    (
        "slack token",
        "xoxp-557947658010-230806186911-491065601490-43be4de8db4947f39b8868767611088d",
    ),
    (
        "slack token",
        "legacy workspace token xoxa-2-bNcgoIreWf6RkJpOxEEwnvvFVi13eZhCZ0N1XXnC",
    ),
    (
        "slack webhook",
        "curl -X POST https://hooks.slack.com/services/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 -d '{}'",
    ),
    (
        "stripe key",
        "STRIPE_SECRET_KEY=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",
    ),
    (
        "stripe key",
        "Stripe.api_key = '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'",
    ),
    (
        "google api key",
        "https://maps.googleapis.com/maps/api/geocode/json?key=AIzaTBE8C4xJZwN9H_ZRl9CZgBrXJhEb8V5F1u1",
    ),
    (
        "google api key",
        "GOOGLE_API_KEY=AIzaSykXujq63ZHiOVNrHIdjKXlan062j0ifwrN",
    ),
    (
        "npm token",
        "//registry.npmjs.org/:_authToken=npm_THg4ESDf9VLI2GtbYmAm6RfY0CncIAHFk819",
    ),
    (
        "pypi token",
        "password = pypi-AgEIcHlwaS5vcmcNONZjN7iUjrnY7p4bW8ELo6bAtLWMRYlGyzWoQNJ8Q5WlnsmqwxyZe7lmDeup30jR2rAsX9Q0bZOFcHQyRN4nWAQLnuGMDTszzdzkrF91QQlUI7p5rEiHvQspaKUEUvxj6eZxrNWcuz07esXpZwRqH",
    ),
    (
        "twilio key",
        "TWILIO_API_KEY=SK7a114cf3fbdd9fedd33add0a19dca927",
    ),
    (
        "sendgrid key",
        "SENDGRID_API_KEY=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",
    ),
    (
        "hugging face token",
        "huggingface-cli login --token hf_3AT4ivS98XCAfko3thTSmrlUpGQsYrxZQH",
    ),
    (
        "groq key",
        "GROQ_API_KEY=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",
    ),
    (
        "xai key",
        "XAI_API_KEY=xai-D6WLya75FdleJXP6xuQEYcHsG02ORHV8IlMXXkhMBpQCJXqYTYUpqFIo2LMFqcmMTdKC34lujMbMFZBG",
    ),
    (
        "digitalocean token",
        "DIGITALOCEAN_TOKEN=dop_v1_e802357419d1a8f25c875fe1adeb614f44e107d42c9fd2179837de27b9a615c1",
    ),
    (
        "shopify token",
        "X-Shopify-Access-Token: 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",
    ),
    (
        "telegram bot token",
        "TELEGRAM_BOT_TOKEN=394762720:AAcxHYBInUhtUrEpcPX5kWPGhMYE_fytqeA",
    ),
    (
        "aws access key id",
        "AWS_ACCESS_KEY_ID=AKIAT236IQU4YJNR4ZIY",
    ),
    (
        "aws access key id",
        "aws_access_key_id = ASIAWOGSXWNICB6ATENW",
    ),
    (
        "aws access key id",
        "\"AccessKeyId\": \"AKIAHXPQF3HZ7D7YVS7R\",",
    ),
    (
        "aws secret access key",
        "aws_secret_access_key = CuZz8vSElR2t9GNcYpUiZIgW/M8PGjdeSPVMHx8X",
    ),
    (
        "aws secret access key",
        "AWS_SECRET_ACCESS_KEY=RUdBjg01iJi75WXerIN/U8ctyIDHCEaYaE/kQHSn",
    ),
    (
        "aws secret access key",
        "\"SecretAccessKey\": \"cOAYuyuuQ+LV1KU/EFUPwqiinNo59fu09gSGYYGG\"",
    ),
    (
        "azure storage key",
        "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=VPxQAq1qIuqzWLDxb8rII1GYXrgupfyKTpZQd9vViN4KCY0sXBKs4wnG+3ptPcIsJZJPDk9zUHgtiaNkaxR9rz==;EndpointSuffix=core.windows.net",
    ),
    (
        "jwt",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.09e1SYhBGJyLF4gwdvpjITdNi7bAiUbHF-ZNm9Z0Gdb",
    ),
    (
        "bearer token",
        "curl -H 'Authorization: Bearer sDPXV-JU5TNJiPmHQBxBgqMAwSntsVSx3cbZ-gZm' https://api.acme.dev/v1/me",
    ),
    (
        "bearer token",
        "headers = {\"Authorization\": \"Bearer a605a23adf7fd582ca5b04c16bed33ededc7c11ee911a4ea8a6fc14f37543388\"}",
    ),
    (
        "bearer token",
        "Authorization: Basic YWRtaW46ZWwzY1R2cUhad0RuSWEzQg==",
    ),
    (
        "bearer token",
        "authorization: bearer mFr9PpegJCYWF4peZF2dX3J5eY8jZxlg",
    ),
    (
        "bearer token",
        "> GET /api HTTP/1.1\n> Authorization: Bearer vc7w93o1shAlNyb2RND5FefPnIOu49.UmJQBya0vSu2O8rQMnSn\n",
    ),
    (
        "github token",
        "-H \"Authorization: token ghp_lXikSLDcirhq8wNNwtmaeSnVTx3tXAmjeOrB\"",
    ),
    (
        "hex private key",
        "PRIVATE_KEY=0xbd8e433bd7f39392e7fc6d7e2bda9e89070db48cd8a333e62b0b0b04f2b5eaf1",
    ),
    (
        "hex private key",
        "private_key = \"70cd7312ec66fb4c32058f3de40bb03bd3393274299b77de16e53e43445d3d07\"",
    ),
    (
        "hex private key",
        "ETH_PRIVATE_KEY=43c590c3f91cd92683daf643c9887b2dfcbdae31915cac73b1abf7f0bd30b7bb",
    ),
    (
        "hex private key",
        "{\"privateKey\": \"0x961a5f3b12688dbc2932c78a1a44991f1c24a060fda252e4ced3ea23b33c9363\"}",
    ),
    (
        "hex private key",
        "wallet key: da4348fd1dc6ffdcf35a60b5bcceeb4fca2f78bd1828c76d25decf3753941b5f",
    ),
    (
        "hex private key",
        "secret_key = 'af4eb937466b3565bab39837b05899848f280984c5425891db7febb68b723290'",
    ),
    (
        "private key",
        "-----BEGIN RSA PRIVATE KEY-----\nnpyVNTshisd0sj3xlT/zn1r+yk+dlrMGQCItt2c+OvluenoMMd1etxkaViBYD0SQ\nCSYbEHgVQT6E1wztBG59CQxEHGcxNDiMQAeFlkF4Bf1rVTijXr1DRAWKi8bg/eWi\n2usiAu/CORrrsOfyErE6VVpIsjxSgpNPxpJ4HlkCcjNxuQnL96S+7eys8d4ZgKuf\nwZBcdC2/i7dxRbvMfRHV8GOvTs126GQ+Du7KvOEZuRKmaS9o/Wa/ZI/7hlO/9hsd\nJ4gkJgEZfGyn2Thj+9tLORzB5MqFJMwp8MFfcR8ZiuoHKXNGxHqh30YaH/+CXTfc\n-----END RSA PRIVATE KEY-----",
    ),
    (
        "private key",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAAu/DDpt3O7IxdInQQgdLM7hQnJB+iemg8FKzUE3PY\niRgTL1B0E8kp2381G1blyxhtxIOIfh6h3n8yGhjaI74q2/FZE0flqFh8ZcXjY7nAF+OpQM\n-----END OPENSSH PRIVATE KEY-----\n",
    ),
    (
        "private key",
        "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCcC0ZyGelI5AU3A53OBc0Ml686WZjDLD63BMCkRYc\n",
    ),
    (
        "private key",
        "{\"type\": \"service_account\", \"private_key\": \"-----BEGIN PRIVATE KEY-----\\nMIIEvgIBADANBgkqhkiG9w0BAQEFAASC1S2HlWCYMz3h/gBYiRU9GG0udrPcJR/Pv/+L1smg674cLT3gjbMvUBWJsTdV\\n-----END PRIVATE KEY-----\\n\"}",
    ),
    (
        "private key",
        "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIYZtNFAwdpkdyHc+hdLQBUPRB8Od4KTCCOtR43wxv8TSBOC9UhD/gidmPfT+X\n-----END EC PRIVATE KEY-----",
    ),
    (
        "private key",
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBFin1cwIftPg7KCcTFUaFLMHbcUN1wIwoum8yN4F0XUH74CKcLMYef6KyV7V6l\n-----END PGP PRIVATE KEY BLOCK-----",
    ),
    (
        "seed phrase",
        "slice inject glove champion day lazy program surprise pact become neither repeat",
    ),
    (
        "seed phrase",
        "my recovery phrase is chase defy almost episode shuffle december topple ten bronze flavor case unique lab zero humble tooth property ankle alien idle horror census labor palm",
    ),
    (
        "seed phrase",
        "1. priority\n2. food\n3. critic\n4. funny\n5. main\n6. gather\n7. income\n8. feed\n9. bubble\n10. quote\n11. bag\n12. elevator",
    ),
    (
        "seed phrase",
        "guard, aunt, father, venue, pig, luggage, fury, phone, depend, address, biology, option, series, license, shoe",
    ),
    (
        "seed phrase",
        "mnemonic: \"gain start word bamboo kiss mom media grid clerk canvas liberty garage just seek nerve dice service phrase\"",
    ),
    (
        "seed phrase",
        "WITNESS ADJUST BULLET SPIRIT WINNER SEVEN DINOSAUR LIKE BODY DESIGN ATOM RETURN SAFE POTTERY SHRUG EPISODE FOX HALF ALARM ZONE KID",
    ),
    (
        "seed phrase",
        "restore with: tortoise genre way bicycle child bachelor dream genre session usage inflict tennis.",
    ),
    (
        "seed phrase",
        "1) witness\n2) adjust\n3) bullet\n4) spirit\n5) winner\n6) seven\n7) dinosaur\n8) like\n9) body\n10) design\n11) atom\n12) return",
    ),
    (
        "seed phrase",
        "witness | adjust | bullet | spirit | winner | seven | dinosaur | like | body | design | atom | return",
    ),
    (
        "seed phrase",
        "1. slice 2. inject 3. glove 4. champion 5. day 6. lazy 7. program 8. surprise 9. pact 10. become 11. neither 12. repeat",
    ),
    (
        "seed phrase",
        "legal\nwinner\nthank\nyear\nwave\nsausage\nworth\nuseful\nlegal\nwinner\nthank\nyellow",
    ),
    (
        "github token",
        "remote: https://x-access-token:ghs_NyVkWxU4dw0ejrkNc5bp4PyjfTci2vM6ZcLh@github.com/acme/app",
    ),
    (
        "openai key",
        "$ curl https://api.openai.com/v1/models -H \"Authorization: Bearer sk-proj-DKxy5o3zjvjvW0tWmXa8NfdyQb2YLKquXVnfHKMLFmxYRGop1UJD9IsHZ-lqh3JAPXyI5dHxUyHzWRao\"",
    ),
    (
        "stripe key",
        "stripe login --api-key sk_live_aSaOvPrEGObeBT6oZElUD2E7",
    ),
    // AWS: every prefix of a key id, an id with no digit, and the secret next to its id (a
    // credentials CSV) or set by the CLI.
    (
        "aws access key id",
        "AWS_ACCESS_KEY_ID=ABIAUSF2TDXB3ZUSPNSJ",
    ),
    (
        "aws access key id",
        "\"AccessKeyId\": \"ACCAAQSJ4EPPKBJX2DVO\"",
    ),
    (
        "aws access key id",
        "export AWS_ACCESS_KEY_ID=AKIAJQTPWMZRLXKVNBEH",
    ),
    (
        "aws secret access key",
        "User name,Password,Access key ID,Secret access key\nci,,AKIA3IKTZE7VM7ACZXSA,9CcPIBZRaASClUl3+tQLNwWVBDr4xlUGmZUIaqsM",
    ),
    (
        "aws secret access key",
        "aws configure set aws_secret_access_key wlgQAumUOAHFrZKszseH28rHEzcpszEV3ZtFotr5",
    ),
    // Hugging Face tokens are letters only.
    (
        "hugging face token",
        "HF_TOKEN=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",
    ),
    // Slack app-level and configuration tokens.
    (
        "slack token",
        "SLACK_APP_TOKEN=xapp-1-A2B3RTKMY6H-5340837852951-f69074791fbbdde1e4e0a879ceca9416609f1443f1fbe5e3deae611c509f503d",
    ),
    (
        "slack token",
        "token: xoxe.xoxp-1-nC3Q8GGepV1a3QvvJcLufQex3Qnk8xfwWgSNhlUVbMWZc7bs6xkOE0ZORfGJBnR70O0ujDWIx7FKV5tFkutqZAZqUEYmDitDbMz1LKWiXHEbAq3jzYkuDoO1NW3X3G91N9nNWyVzjk4RtOOBArjKeb99xE7ZIUXwd2mW",
    ),
    (
        "slack token",
        "refresh_token=xoxe-1-5Kfn1zB7qBnHJwAZHyZSPP9qbUbNNIeSjw4qKH8knrL0hb0k0DHzk7cyN06cGKw6GoJQq0Q2UBtC5A0MnURrUW9Bt4iTBftiF41HjPIU3ze9TXHLu732HqEyJ9QSGaKVIeDbuoDDW77owJ4Fy5",
    ),
    // GitLab's other token prefixes.
    (
        "gitlab token",
        "CI_DEPLOY_PASSWORD=gldt-uqVZpLuGpcBBwZBnLxn1",
    ),
    ("gitlab token", "--token glrt-oYCNqH5nf_3xCyWoKPRM"),
    ("gitlab token", "scim: glsoat-K-xCtH1L97hwOI4-Ablj"),
    (
        "gitlab token",
        "incoming_email_token: glimt-qacRop_Q-9lZpKh_Zn8Z0jIho",
    ),
    (
        "gitlab token",
        "UNLEASH_INSTANCE_ID=glffct-BqO3zKbYXVVbjbIbmjWF",
    ),
    ("gitlab token", "feed_token=glft-9tmxg7do8yw2Oiky9dUq"),
    (
        "gitlab token",
        "agent token glagent-JWd4qnxQFgPJFE7oO9PShx1RQEWGjK7gRz940jZAiGAsvjnInU",
    ),
    (
        "gitlab token",
        "secret: gloas-Vign4BHS-PLokUlQQbBFK1NzZQEn-Bl8nJLzbS2-h5dyAeGUWK48L5EDJvQvfO52",
    ),
    ("gitlab token", "CI_JOB_TOKEN=glcbt-RZ_BHqeTEU8MpNbfbrpw4Qs"),
    // Longer than the 20 characters gitleaks' rule counts (GitLab's documentation allows up
    // to 50), and a legacy Slack token with six-digit groups.
    (
        "gitlab token",
        "GITLAB_TOKEN=glpat-Vq7rT2xLp9Kd3MwZ8bNc4HsJ6gFy1A",
    ),
    (
        "slack token",
        "token: xoxp-523423-234243-234233-e039d02840a0b9379c",
    ),
    (
        "gitlab token",
        "registration-token GR1348941tzK9Ad8QKQv7N4QKsPxQ",
    ),
    (
        "gitlab token",
        "GITLAB_TOKEN=glpat-0luQNeRNC2GuC43zVM7hB5JXAABNfMoJFsqV.01kx2ugz0",
    ),
    // Formats another suite knows by their shape (detect-secrets' Discord, Mailchimp and npm
    // plugins), a URL's password, an unsigned JWT.
    (
        "discord bot token",
        "DISCORD_TOKEN=MTE0MzA1MjgzNDIxNTQzNjI5OA.1QDxwp.jX-D8UT8PDQSXrPVed5HjrAoVrt",
    ),
    (
        "mailchimp key",
        "MAILCHIMP_KEY=cca95bf8e2f8559f823cdef7f73edd77-us21",
    ),
    (
        "npm token",
        "//registry.npmjs.org/:_authToken=875b6eff-3759-429a-b6cf-e8355d6e1742",
    ),
    (
        "url password",
        "DATABASE_URL=postgres://app:YF6T5yDiNGbA@db.internal:5432/app",
    ),
    (
        "jwt",
        "token=eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiI0MiIsInJvbGUiOiJhZG1pbiJ9",
    ),
    // A quoted value assigned to, or compared with, a password's or a key's name.
    ("password", "DB_PASSWORD = \"Xk3v9#QpL2mZr!\""),
    ("password", "{\"db_pass\": \"pR7$kW2q!Lm9\"}"),
    ("password", "if (api_key == \"Zt8#qL3vW1pX\") {"),
    ("password", "if (\"Zt8#qL3vW1pX\" !== my_password_sec) {"),
    // Vendors the built-in formats do not name, from the catalogue.
    (
        "sendinblue api token",
        "BREVO_KEY=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",
    ),
    (
        "doppler api token",
        "DOPPLER_TOKEN=dp.pt.k3Lm9QzW2xNv7BcRt5YhUj8PaSd4FgHe6KiOl1ZxCv0",
    ),
];

/// Texts in which nothing is a secret.
const PASS: &[&str] = &[
    "commit 9fceb02d0ae598e95dc970b74767f19372d61af8\nAuthor: Jane Doe <jane@example.com>",
    "git checkout 3f2a1c9",
    "Merge pull request #4521 from acme/fix-login (a1b2c3d4e5f60718293a4b5c6d7e8f9012345678)",
    "request id 550e8400-e29b-41d4-a716-446655440000 failed",
    "session_id: 736b96a0-692f-4360-bb7b-738eeef795cd",
    "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881  hookchain-0.1.0.tar.gz",
    "sha256: a1fce4363854ff888cff4b8e7875d600c2682390412a8cf79b37d0b11148b0fa",
    "\"integrity\": \"sha512-WuYlZl8+C9CgZe0HpBmJ5AJbedE5MKKoxX1rQyUiZwfZVqCC0ekbTZank1Yt+Y/QPJ3PdDyce04wVdT58JugFQ==\"",
    "tx hash 0x1b5b9ccb3e8d006a5230de9bda23ff91edc794d4f56410560830b418528e446c confirmed in block 19283746",
    "<img src=\"data:image/png;base64,pU3KGCUwux1tEyze1iN7LtkeP3IfyxlxF0SU1kk8nVw0YL4xIB5p/tqg7ui5mX9cfCmZ/a/lkyU81lSvTfrXFCegrrP+6SMvivIhH57kkcWxC+y1Vjv8Hm+TQn7LyP4pVeXNjkbcjtS3wnZNKlpNdncG+F2GkAJK1r2jQBvpyMvMyTX2zR9hImrhUziuGjQATTO6DSRqwEyBsbryPjv57vX3nytJNK+H9VILablLDZguhbtVtnKocmN6zXRm/LYODo/xhGOw5LK6KXA0dPBkrGj3APWwKz3GZvRb3qosyu3NK1FXQQ5N7krys09DCgc0R95jbA6AbJV7poTWQx+16tdCTQnhXQJMWEjyPR+m9zYdf2GNFTLnDiDipmaN5/R+hGflRtU+yOKhJXvbJWybPk+7SYFG73Awy/lTclLczq3XZLajL7sJrerhCcSplyA5dTUrh4sUXIpC2ITPTP2nLY4dXdkliQgthSpxIoc+6AWt1YlCFno4UoYZXGefnGmU5FuKsQmAEgcJYfN95Dbd/cmdbnWvZUfPsRtCBySC3FMcK8OQfJYX615QieQBhrqopX0Rnm+2XQCrwyrzjmZ/Ai6HLUnMFckLmZt3K0/Hpv1MkUoW20cIdSsPFUS4NcDnGQl9+ocB6SMvIfKBJod4aXbr/MMn9ZMXZSdLqYKbRAb2H/iJMm/6lJLt7u48Zp8r8giU6ifmicZrayYuSIa4Q485unb++MkMUQH75s+aSNWwwKE9qQCmrcs9ZAaUgb4hyccnuNuMGI80GpJMf4jfoWG/2w7MaCkZ\">",
    "![chart](data:image/jpeg;base64,pU3KGCUwux1tEyze1iN7LtkeP3IfyxlxF0SU1kk8nVw0YL4xIB5p/tqg7ui5mX9cfCmZ/a/lkyU81lSvTfrXFCegrrP+6SMvivIhH57kkcWxC+y1Vjv8Hm+TQn7LyP4pVeXNjkbcjtS3wnZNKlpNdncG+F2GkAJK1r2jQBvpyMvMyTX2zR9hImrhUziuGjQATTO6DSRqwEyBsbryPjv57vX3nytJNK+H9VILablLDZguhbtVtnKocmN6zXRm/LYODo/xhGOw5LK6KXA0dPBkrGj3APWwKz3GZvRb3qosyu3NK1FXQQ5N7krys09DCgc0R95jbA6AbJV7poTWQx+16tdCTQnhXQJMWEjyPR+m9zYdf2GNFTLnDiDipmaN5/R+hGflRtU+yOKhJXvb)",
    "The quick brown fox jumps over the lazy dog while the team reviews the pull request.",
    "I think we should add a test for the login flow before we change the session code, and then run the whole suite again.",
    "Please use the token from the environment instead of hard-coding it in the config file.",
    "Set OPENAI_API_KEY in your shell: export OPENAI_API_KEY=sk-...",
    "export ANTHROPIC_API_KEY=\"$ANTHROPIC_API_KEY\"",
    "curl -H \"Authorization: Bearer $OPENAI_API_KEY\" https://api.openai.com/v1/models",
    "curl -H 'Authorization: Bearer ${GITHUB_TOKEN}' https://api.github.com/user",
    "Authorization: Bearer <YOUR_ACCESS_TOKEN>",
    "Authorization: Bearer YOUR_ACCESS_TOKEN_HERE",
    "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "api_key = \"sk-ant-api03-...\"",
    "STRIPE_KEY=sk_test_4eC39HqLyjWDarjtT1zdp7dc",
    "from sklearn.model_selection import train_test_split",
    "fn sk_learn_model_from_config(config: &Config) -> Model",
    "let ghp_token_env_var_name_for_the_github_helper = \"GITHUB_TOKEN\";",
    "def get_private_key_path(self): return self.config['private_key_path']",
    "private_key = load_pem(os.environ['PRIVATE_KEY_FILE'])",
    "private_key: ${{ secrets.DEPLOY_KEY }}",
    "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo\n-----END PUBLIC KEY-----",
    "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n-----END CERTIFICATE-----",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl jane@laptop",
    "The file starts with -----BEGIN RSA PRIVATE KEY----- and you should never commit it.",
    "Error: key must be a PEM (-----BEGIN PRIVATE KEY-----), got an empty file",
    "docker pull ghcr.io/acme/app@sha256:b29814cf5792e684cd75d6a7fce7a67a11887e312f87ca2ac2496d81f365ff72",
    "Cargo.lock: checksum = \"f5fe331d2367a7a67ee20bd579c77b929ae49439d8b0d8e9c3b98609797b6b69\"",
    "pip install requests==2.31.0 --hash=sha256:c3f7bdf537c46724392c4428e47e04c148c56966190c3c9ed92114800c9f35bb",
    "npm notice package: hookchain@0.1.0, shasum: 2f5eed53a4727b4bf8880d8f3f199efc90e58503",
    "MD5 (build.zip) = 9e107d9d372bb6826bd81d3542a419d6",
    "color: #ff6600; background: #1a1a1a;",
    "const API_KEY_HEADER = 'x-api-key'; // the value comes from the vault",
    "The seed phrase is twelve words you write down on paper; never type it into a chat.",
    "You can use the build output to check the code and the file list before you run any test again.",
    "ERROR: permission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock",
    "test result: ok. 128 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.42s",
    "  Compiling hooks-guards v0.1.0 (/work/repo/hooks-guards)\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 12.34s",
    "https://github.com/acme/app/compare/1a2b3c4d5e6f...7a8b9c0d1e2f",
    "https://www.youtube.com/watch?v=dQw4w9WgXcQ&list=PLrAXtmErZgOeiKm4sgNOknGvNjby9efdf",
    "ETag: \"33a64df551425fcc55e4d42a148795d9f25f89d4\"",
    "X-Request-Id: 7f3e2a1b-9c8d-4e5f-a6b7-c8d9e0f1a2b3",
    "ghp is short for GitHub personal token; gho_ for OAuth, ghs_ for server-to-server.",
    "AKIA is the prefix of an AWS access key id; ASIA means temporary credentials.",
    "Use glpat- tokens with the api scope, and rotate them every 90 days.",
    "Slack tokens look like xoxb-... for bots and xoxp-... for users.",
    "The AIza prefix marks a Google API key.",
    "wallet address 0x742d35Cc6634C0532925a3b844Bc454e4438f44e received 1.2 ETH",
    "bitcoin address bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
    "password: ${DB_PASSWORD}",
    "DATABASE_URL=postgres://app@localhost:5432/app_dev",
    "kubectl get secret db-creds -o jsonpath='{.data.password}'",
    "The function sk_live_mode_enabled() returns true in production only.",
    "jwt.decode(token, options={\"verify_signature\": False})",
    "Bearer tokens go in the Authorization header; see RFC 6750.",
    "abandon is a BIP-39 word, and so are ability, able and about.",
    "let words = [\"apple\", \"banana\", \"cherry\"];",
    "base64 of hello world is aGVsbG8gd29ybGQ=",
    "ULID 01ARZ3NDEKTSV4RRFFQ69G5FAV and KSUID 0ujtsYcgvSTl8PAuAdqWYSMnLOv",
    "SKU-2024-00017 shipped; order SK1234 pending",
    "// TODO(jane): move the signing key loading into the keystore module",
    "hookchain test PreToolUse --payload-file payload.json",
    // Twelve or more BIP-39 words that are not a seed phrase: a word list in code, a list in a
    // sentence, a bullet list, a YAML list under its key.
    "const FRUITS: [&str; 12] = [\"apple\", \"banana\", \"cherry\", \"grape\", \"lemon\", \"mango\", \"orange\", \"pear\", \"olive\", \"kiwi\", \"coconut\", \"avocado\"];",
    "We stock apple, banana, cherry, grape, lemon, mango, orange, pear, olive, kiwi, coconut, avocado, tomato and potato all year.",
    "Release steps:\n- build\n- test\n- review\n- merge\n- update\n- upgrade\n- install\n- remove\n- clean\n- check\n- audit\n- bundle\n- release",
    "seasons:\n  - spring\n  - summer\n  - autumn\n  - winter\nmonths:\n  - march\n  - april\n  - august\n  - october\ncolours:\n  - blue\n  - green\n  - black\n  - brown",
    "The garden has apple cherry lemon olive kiwi coconut avocado tomato potato onion garlic pepper trees in it.",
    // A password's or a key's name given a placeholder, a name, a template or a test value.
    "password = \"password\"",
    "api_key: \"OPENAI_API_KEY\"",
    "password_label = \"Enter your password\"",
    "secret = \"my-app-secret-name\"",
    "LLM_SECRET_NAME = \"NEXUS-GPT4-API-KEY\"",
    "apiKey: \"apiKeyHeader\"",
    "password = \"test1234\"",
    "api_key = os.getenv(\"API_KEY\")",
    "DATABASE_URL=postgres://user:password@localhost:5432/app",
    "MONGO_URL=mongodb+srv://admin:<password>@cluster0.example.net/db",
    "REDIS_URL=redis://default:${REDIS_PASSWORD}@cache:6379",
    // Documented example values and templates.
    "STRIPE_KEY=sk_test_4eC39HqLyjWDarjtT1zdp7dc # Stripe's documented test key",
    "password = os.environ[\"DB_PASSWORD\"]",
    "api_key: ${{ secrets.OPENAI_API_KEY }}",
    "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n-----END OPENSSH PRIVATE KEY-----",
    "-----BEGIN PRIVATE KEY-----\nanything\n-----END PRIVATE KEY-----",
    "-----BEGIN RSA PRIVATE KEY-----\n<your key here>\n-----END RSA PRIVATE KEY-----",
    "-----BEGIN EC PRIVATE KEY-----\n[REDACTED]\n-----END EC PRIVATE KEY-----",
];

#[test]
fn the_corpus_finds_every_secret_and_passes_everything_else() {
    let guard = Secrets::default();
    let mut fneg = Vec::new();
    let mut fpos = Vec::new();
    for (kind, text) in FIND {
        let found = guard.scan(text);
        if !found.iter().any(|f| f.kind == *kind) {
            fneg.push(format!("{kind}: {text}  =>  {found:?}"));
        }
        // The masked text keeps none of the secret's tail.
        let masked = guard.mask(text).unwrap_or_default();
        for f in &found {
            let secret = &text[f.range.clone()];
            let tail = &secret[f.prefix.len()..];
            if tail.len() >= 8 && masked.contains(tail) {
                fneg.push(format!(
                    "{kind}: masked text still holds the secret: {masked}"
                ));
            }
        }
    }
    for text in PASS {
        let found = guard.scan(text);
        if !found.is_empty() {
            fpos.push(format!("{text}  =>  {found:?}"));
        }
    }
    println!(
        "secrets corpus: {} to find, {} to pass; false negatives {}, false positives {}",
        FIND.len(),
        PASS.len(),
        fneg.len(),
        fpos.len()
    );
    for f in &fneg {
        println!("  FN: {f}");
    }
    for f in &fpos {
        println!("  FP: {f}");
    }
    assert!(FIND.len() >= 60 && PASS.len() >= 60);
    assert_eq!((fpos.len(), fneg.len()), (0, 0));
}

const KEY: &str = "sk-ant-api03-Xk3v9QpL2mZr8TnW4yHc7JdF1sGb6VaE0uKiOoPq";

fn outbound(text: &str) -> Outbound {
    Outbound {
        platform: "slack".into(),
        recipient: "#general".into(),
        text: text.into(),
    }
}

fn result(response: serde_json::Value) -> ToolResult {
    ToolResult {
        tool_name: "read_file".into(),
        tool_input: json!({"path": ".env"}),
        tool_use_id: None,
        tool_response: response,
        is_error: false,
        blocked: None,
    }
}

#[test]
fn by_default_it_blocks_user_input_and_outbound_messages_and_masks_tool_results_and_replies() {
    let hooks = HooksBuilder::new()
        .builtin(Secrets::default())
        .build()
        .unwrap();
    let turn = hooks.session("secrets-default").begin_turn();

    let blocked = turn
        .transform_user_input(format!("deploy with {KEY}"))
        .blocked()
        .expect("a key in user input is blocked");
    assert_eq!(&*blocked.hook, "secrets");
    let why = blocked.reason.to_string();
    assert!(why.contains("an anthropic key (`sk-ant-…`)"), "{why}");
    assert!(
        !why.contains(&KEY[7..]),
        "the reason never repeats the secret: {why}"
    );
    assert!(!turn.transform_user_input("deploy the app").is_blocked());

    assert!(
        turn.outbound_message(outbound(&format!("key: {KEY}")))
            .is_blocked()
    );
    assert!(!turn.outbound_message(outbound("deployed")).is_blocked());

    let masked = turn
        .transform_tool_result(result(json!({
            "content": format!("ANTHROPIC_API_KEY={KEY}\nDEBUG=1"),
            "lines": [2, "AWS_ACCESS_KEY_ID=AKIA4HK7Q2XN5BTYZR3M"],
        })))
        .continued()
        .unwrap();
    assert_eq!(
        masked.tool_response,
        json!({
            "content": "ANTHROPIC_API_KEY=sk-ant-…[masked anthropic key]\nDEBUG=1",
            "lines": [2, "AWS_ACCESS_KEY_ID=AKIA…[masked aws access key id]"],
        })
    );

    let reply = turn
        .transform_response(format!("Your key is {KEY}."))
        .continued()
        .unwrap();
    assert_eq!(reply, "Your key is sk-ant-…[masked anthropic key].");
}

#[test]
fn each_point_is_configured_on_its_own() {
    let guard = Secrets {
        transform_user_input: Action::Mask,
        outbound_message: Action::Off,
        transform_tool_result: Action::Block,
        transform_response: Action::Off,
        ..Secrets::default()
    };
    let hooks = HooksBuilder::new().builtin(guard).build().unwrap();
    let turn = hooks.session("secrets-points").begin_turn();
    let text = format!("use {KEY}");
    assert_eq!(
        turn.transform_user_input(text.as_str())
            .continued()
            .unwrap(),
        "use sk-ant-…[masked anthropic key]"
    );
    assert_eq!(
        turn.outbound_message(outbound(&text))
            .continued()
            .unwrap()
            .text,
        text
    );
    let blocked = turn
        .transform_tool_result(result(json!(format!("KEY={KEY}"))))
        .blocked()
        .expect("block: the result is withheld");
    assert!(
        blocked
            .reason
            .to_string()
            .contains("the result of tool `read_file`"),
        "{}",
        blocked.reason
    );
    assert_eq!(
        turn.transform_response(text.clone()).continued().unwrap(),
        text
    );
}

#[test]
fn allowed_strings_pass() {
    let guard = Secrets {
        allow: vec![KEY.into()],
        ..Secrets::default()
    };
    assert!(guard.scan(&format!("fixture {KEY}")).is_empty());
    assert_eq!(Secrets::default().scan(&format!("fixture {KEY}")).len(), 1);
}

#[test]
fn masks_keep_a_short_prefix_and_the_kind() {
    let guard = Secrets::default();
    let cases = [
        (
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx4Rk9pQ2mZr8TnW4yHc7JdF1sGb6VaE0uKiOoPq\n-----END RSA PRIVATE KEY-----\nnext",
            "-----BEGIN RSA PRIVATE KEY-----…[masked private key]\nnext",
        ),
        (
            "PRIVATE_KEY=0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318",
            "PRIVATE_KEY=0x…[masked hex private key]",
        ),
        (
            "Authorization: Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0",
            "Authorization: Bearer …[masked bearer token]",
        ),
        (
            "seed: legal winner thank year wave sausage worth useful legal winner thank yellow",
            "seed: …[masked seed phrase]",
        ),
        (
            "GITHUB_TOKEN=ghp_pLIix6MEOLeMa61EqJomTEI1JEzO3joOj37H",
            "GITHUB_TOKEN=ghp_…[masked github token]",
        ),
    ];
    for (text, masked) in cases {
        assert_eq!(guard.mask(text).as_deref(), Some(masked), "{text}");
    }
}

#[test]
fn a_secret_in_a_tool_calls_arguments_is_blocked_by_default_naming_the_argument() {
    let hooks = HooksBuilder::new()
        .builtin(Secrets::default())
        .build()
        .unwrap();
    let turn = hooks.session("secrets-calls").begin_turn();
    let calls = [
        (
            ToolCall::new(
                "Write",
                json!({"file_path": "app/config.py", "content": format!("import os\n\nAPI_KEY = \"{KEY}\"\n")}),
            ),
            "`content`",
        ),
        (
            ToolCall::new(
                "Edit",
                json!({"file_path": ".env", "old_string": "ANTHROPIC_API_KEY=", "new_string": format!("ANTHROPIC_API_KEY={KEY}")}),
            ),
            "`new_string`",
        ),
        (
            ToolCall::new(
                "Bash",
                json!({"command": format!("curl -H 'x-api-key: {KEY}' https://api.anthropic.com/v1/models")}),
            ),
            "`command`",
        ),
        (
            ToolCall::new(
                "MultiEdit",
                json!({"edits": [{"old_string": "a", "new_string": "b"}, {"old_string": "c", "new_string": format!("key = {KEY}")}]}),
            ),
            "`edits[1].new_string`",
        ),
    ];
    for (call, field) in calls {
        let blocked = turn
            .intercept_tool_call(call.clone())
            .blocked()
            .unwrap_or_else(|| panic!("a key in {} is blocked", call.name));
        let why = blocked.reason.to_string();
        assert_eq!(&*blocked.hook, "secrets");
        assert!(why.contains(&format!("tool `{}`", call.name)), "{why}");
        assert!(why.contains("an anthropic key (`sk-ant-…`)"), "{why}");
        assert!(why.contains(field), "{why}");
        assert!(
            !why.contains(&KEY[7..]),
            "the reason never repeats the key: {why}"
        );
    }
    let harmless = [
        ToolCall::new(
            "Write",
            json!({"file_path": "app/config.py", "content": "import os\n\nAPI_KEY = os.environ[\"ANTHROPIC_API_KEY\"]\n"}),
        ),
        ToolCall::new(
            "Bash",
            json!({"command": "curl -H \"Authorization: Bearer $GITHUB_TOKEN\" https://api.github.com/user"}),
        ),
        ToolCall::new(
            "Bash",
            json!({"command": "git log -1 --format=%H && sha256sum target/release/app"}),
        ),
    ];
    for call in harmless {
        assert!(
            !turn.intercept_tool_call(call.clone()).is_blocked(),
            "{call:?}"
        );
    }
}

#[test]
fn tool_call_arguments_can_be_masked_or_left_alone() {
    let masking = HooksBuilder::new()
        .builtin(Secrets {
            intercept_tool_call: Action::Mask,
            ..Secrets::default()
        })
        .build()
        .unwrap();
    let turn = masking.session("secrets-calls-mask").begin_turn();
    let call = ToolCall::new(
        "Write",
        json!({"file_path": "notes.md", "content": format!("key: {KEY}")}),
    );
    let args = turn.intercept_tool_call(call.clone()).continued().unwrap();
    assert_eq!(
        args.args,
        json!({"file_path": "notes.md", "content": "key: sk-ant-…[masked anthropic key]"})
    );
    let off = HooksBuilder::new()
        .builtin(Secrets {
            intercept_tool_call: Action::Off,
            ..Secrets::default()
        })
        .build()
        .unwrap();
    let turn = off.session("secrets-calls-off").begin_turn();
    assert_eq!(
        turn.intercept_tool_call(call.clone())
            .continued()
            .unwrap()
            .args,
        call.args
    );
}

#[test]
fn a_secret_that_is_a_key_of_a_json_object_in_a_tool_result_is_masked_or_blocked() {
    let hooks = HooksBuilder::new()
        .builtin(Secrets::default())
        .build()
        .unwrap();
    let turn = hooks.session("secrets-json-keys").begin_turn();
    let masked = turn
        .transform_tool_result(result(json!({"tokens": {KEY: "prod", "name": "ci"}})))
        .continued()
        .unwrap();
    assert_eq!(
        masked.tool_response,
        json!({"tokens": {"sk-ant-…[masked anthropic key]": "prod", "name": "ci"}})
    );
    let blocking = HooksBuilder::new()
        .builtin(Secrets {
            transform_tool_result: Action::Block,
            ..Secrets::default()
        })
        .build()
        .unwrap();
    let turn = blocking.session("secrets-json-keys-block").begin_turn();
    assert!(
        turn.transform_tool_result(result(json!({KEY: 1})))
            .is_blocked()
    );
}

#[test]
fn a_quoted_password_is_masked_in_a_result_but_does_not_stop_a_tool_call_a_random_key_does() {
    let hooks = HooksBuilder::new()
        .builtin(Secrets::default())
        .build()
        .unwrap();
    let turn = hooks.session("secrets-generic").begin_turn();
    let fixture = "def test_login():\n    password = \"Xk3v9#QpL2mZr!\"\n";
    let write = |content: &str| {
        ToolCall::new(
            "Write",
            json!({"file_path": "tests/test_login.py", "content": content}),
        )
    };
    assert!(
        !turn.intercept_tool_call(write(fixture)).is_blocked(),
        "a password the model writes into a test is its own"
    );
    let masked = turn
        .transform_tool_result(result(json!(fixture)))
        .continued()
        .unwrap();
    assert_eq!(
        masked.tool_response,
        json!("def test_login():\n    password = \"…[masked password]\"\n")
    );
    // A long random value assigned to a token's name (gitleaks' generic rule) is a key.
    let hardcoded = "client = Client(auth_token=\"q8Zr3LmW5vTx9KpB2nYc7HsJ4dFg6A\")\n";
    let blocked = turn
        .intercept_tool_call(write(hardcoded))
        .blocked()
        .expect("a random token written into code is blocked");
    assert!(
        blocked.reason.to_string().contains("a generic api key"),
        "{}",
        blocked.reason
    );
}

#[test]
fn the_catalogues_rules_for_a_kind_of_file_run_on_what_a_tool_read_from_one() {
    let hooks = HooksBuilder::new()
        .builtin(Secrets::default())
        .build()
        .unwrap();
    let turn = hooks.session("secrets-files").begin_turn();
    // A Kubernetes Secret's data is base64, which says nothing of itself: gitleaks' rule for
    // Secret manifests knows it by the file (YAML) and the manifest's kind.
    let manifest = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  dsn: aG9zdD1kYi5pbnRlcm5hbCBwb3J0PTU0MzIgc3NsbW9kZT1yZXF1aXJl\n";
    let read = |input: serde_json::Value| ToolResult {
        tool_name: "Read".into(),
        tool_input: input,
        tool_use_id: None,
        tool_response: json!(manifest),
        is_error: false,
        blocked: None,
    };
    let masked = turn
        .transform_tool_result(read(json!({"file_path": "deploy/db-secret.yaml"})))
        .continued()
        .unwrap();
    assert_ne!(
        masked.tool_response,
        json!(manifest),
        "masked in a YAML file"
    );
    assert!(
        !masked
            .tool_response
            .as_str()
            .unwrap()
            .contains("aG9zdD1kYi5pbnRlcm5h")
    );
    let same = turn
        .transform_tool_result(read(json!({"command": "echo"})))
        .continued()
        .unwrap();
    assert_eq!(
        same.tool_response,
        json!(manifest),
        "no file named: no file rule"
    );
    assert_eq!(
        Secrets::default()
            .scan_file(manifest, "deploy/db-secret.yaml")
            .len(),
        1
    );
}

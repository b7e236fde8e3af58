//! `blobs copy`: the database's PDFs into an S3-compatible bucket ([`crate::blobs`]).

use clap::Subcommand;
use envelope_core::error::BoxError;

use super::StoreArgs;
use crate::blobs::copy_to_bucket;

#[derive(Debug, Subcommand)]
pub(crate) enum BlobsCommand {
    /// Copy every PDF of the database (its `blobs` table) into an S3-compatible bucket, for a
    /// move to --blob-url: credentials, region and endpoint from the AWS_* variables. Blobs
    /// the bucket already holds with the same size are skipped, so running it again resumes
    /// a copy cut short; nothing is deleted. Then start the server with --blob-url <same URL>.
    Copy {
        /// The bucket and prefix: s3://bucket/prefix.
        #[arg(long)]
        to: String,
    },
}

impl BlobsCommand {
    /// Runs it on the store of `store`, reporting to standard output.
    pub(crate) async fn run(self, store: &StoreArgs) -> Result<(), BoxError> {
        match self {
            BlobsCommand::Copy { to } => {
                copy_to_bucket(&store.options(), &to, &mut std::io::stdout().lock()).await?;
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::cli::{Cli, Command};

    #[test]
    fn copy_takes_the_bucket_and_the_store() {
        let cli = Cli::try_parse_from([
            "envelope-server",
            "blobs",
            "--data-dir",
            "/tmp/d",
            "copy",
            "--to",
            "s3://pdfs/x",
        ])
        .unwrap();
        assert!(matches!(
            cli.command,
            Some(Command::Blobs {
                command: BlobsCommand::Copy { ref to },
                ..
            }) if to == "s3://pdfs/x"
        ));
    }
}

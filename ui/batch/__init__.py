"""The Batch page: padding, truncation, attention masks, waste and exports of a batch."""

"""Reading and writing tokenizer files: tokenizer.json, SentencePiece models, BERT vocab.txt,
GPT-2 and tiktoken files, the offline references, and the Hugging Face Hub."""

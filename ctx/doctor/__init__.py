"""`ctx doctor`: findings about what is already stored, and their fixes."""

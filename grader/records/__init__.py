"""What a term records and reports: its gradebook, the completion markers and scores, the CSV and plots, the
feedback pages."""

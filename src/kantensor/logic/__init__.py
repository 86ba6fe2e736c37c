"""The kanren side: tensor terms, kantensor's constraint store on kanren's, size and
dtype constraints, labeling."""

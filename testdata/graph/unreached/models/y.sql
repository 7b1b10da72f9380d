SELECT a FROM ref('z')

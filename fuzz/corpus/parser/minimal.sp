func main.main
  ret
end
